import Benchmark
import Foundation
import WebImage

/// Memory hits through the whole manager pipeline (registered from `benchmarks`): the completion
/// API with an inline callback queue, and the async API.
func managerBenchmarks() {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("webimage-bench-manager-\(getpid())", isDirectory: true)
    let cache = ImageCache(namespace: "bench", directory: directory)
    let manager = ImageManager(cache: cache, loader: LoadersManager(loaders: []))
    let image = Image(bitmap: Bitmap(width: 64, height: 64, fill: .white))
    let urls = (0..<1000).map { URL(string: "https://example.com/images/\($0).jpg")! }
    for url in urls { cache.storeImageToMemory(image, forKey: url.absoluteString) }
    var inline = WebImageContext()
    inline.callbackQueue = .immediate

    Benchmark("ImageManager memory hit (completion)",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .kilo)) { benchmark in
        for i in benchmark.scaledIterations {
            manager.loadImage(with: urls[i % urls.count], context: inline) { result in
                blackHole(result.image)
            }
        }
    }

    Benchmark("ImageManager memory hit (async)",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .kilo)) { benchmark in
        for i in benchmark.scaledIterations {
            blackHole(try await manager.image(for: urls[i % urls.count], context: inline).image)
        }
    }
}
