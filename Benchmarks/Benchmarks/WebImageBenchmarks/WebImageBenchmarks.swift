import Benchmark
import Dispatch
import Foundation
import WebImage

/// Images to decode: the shared harness's set named `set` when `WEBIMAGE_BENCH_DATA` points at a
/// dataset, else one photo-like JPEG of `fallback` size made by our own encoder.
func benchmarkInputs(set: String, fallback: PixelSize) -> [Data] {
    if let root = ProcessInfo.processInfo.environment["WEBIMAGE_BENCH_DATA"] {
        let dir = URL(fileURLWithPath: root).appendingPathComponent(set)
        if let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) {
            let files = names.sorted().compactMap { try? Data(contentsOf: dir.appendingPathComponent($0)) }
            if !files.isEmpty { return files }
        }
    }
    let bitmap = Bitmap(width: fallback.width, height: fallback.height) { out in
        for y in 0..<fallback.height {
            for x in 0..<fallback.width {
                let i = (y * fallback.width + x) * 4
                out[i] = UInt8(truncatingIfNeeded: x &* 3 ^ y)
                out[i + 1] = UInt8(truncatingIfNeeded: y &* 2)
                out[i + 2] = UInt8(truncatingIfNeeded: (x ^ y) &* 5)
                out[i + 3] = 255
            }
        }
    }
    let data = try? CodersManager.shared.encode(Image(bitmap: bitmap), as: .jpeg,
                                                options: EncodeOptions(compressionQuality: 0.85))
    return data.map { [$0] } ?? []
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput, .mallocCountTotal],
                                           maxDuration: .seconds(3))

    let medium = benchmarkInputs(set: "jpeg-medium", fallback: PixelSize(width: 1024, height: 768))
    Benchmark("Decode jpeg-medium (full)") { benchmark in
        for i in benchmark.scaledIterations {
            blackHole(try CodersManager.shared.decode(medium[i % medium.count], options: .default))
        }
    }

    let small = benchmarkInputs(set: "jpeg-small", fallback: PixelSize(width: 256, height: 256))
    Benchmark("Decode jpeg-small (full)") { benchmark in
        for i in benchmark.scaledIterations {
            blackHole(try CodersManager.shared.decode(small[i % small.count], options: .default))
        }
    }

    let large = benchmarkInputs(set: "jpeg-large", fallback: PixelSize(width: 4000, height: 3000))
    let thumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
    Benchmark("Thumbnail 256 of jpeg-large") { benchmark in
        for i in benchmark.scaledIterations {
            blackHole(try CodersManager.shared.decode(large[i % large.count], options: thumbnail))
        }
    }

    cacheBenchmarks()
    managerBenchmarks()
    colorBenchmarks()
}

/// Memory-cache and disk-cache benchmarks (registered from `benchmarks`).
func cacheBenchmarks() {
    let memory = MemoryCache(costLimit: 1 << 30)
    let image = Image(bitmap: Bitmap(width: 64, height: 64, fill: .white))
    let keys = (0..<1000).map { "https://example.com/images/\($0).jpg" }
    for key in keys { memory.set(image, forKey: key) }

    Benchmark("MemoryCache hit (1 thread)",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .kilo)) { benchmark in
        for i in benchmark.scaledIterations {
            blackHole(memory.get(forKey: keys[i % keys.count]))
        }
    }

    Benchmark("MemoryCache hit (2 threads)",
              configuration: .init(metrics: [.wallClock], scalingFactor: .kilo)) { benchmark in
        let perThread = benchmark.scaledIterations.count / 2
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for i in 0..<perThread {
                blackHole(memory.get(forKey: keys[(i + thread * 500) % keys.count]))
            }
        }
    }

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-bench-disk")
    let disk = DiskCache(config: DiskCacheConfig(directory: directory, namespace: "bench"))
    let medium = benchmarkInputs(set: "jpeg-medium", fallback: PixelSize(width: 1024, height: 768))
    for (i, data) in medium.enumerated() { try? disk.setData(data, forKey: "medium-\(i)") }

    Benchmark("DiskCache hit + decode jpeg-medium") { benchmark in
        for i in benchmark.scaledIterations {
            guard let data = disk.data(forKey: "medium-\(i % medium.count)") else { continue }
            blackHole(try CodersManager.shared.decode(data, options: .default))
        }
    }

    Benchmark("DiskCache write jpeg-medium",
              configuration: .init(metrics: [.wallClock, .throughput])) { benchmark in
        for i in benchmark.scaledIterations {
            try disk.setData(medium[i % medium.count], forKey: "write-\(i % 64)")
        }
    }
}
