import Foundation
import WebImage

/// One timed pass of the demo: every URL loaded concurrently through a manager.
struct DemoPass {
    let name: String
    var images: [Image?] = []
    var failures: [WebImageError] = []
    var cacheHits = 0
    var bytesDownloaded = 0
    var seconds = 0.0

    var loaded: Int { images.compactMap { $0 }.count }

    /// Loads `urls` with `manager`, counting what the origin sent meanwhile.
    static func run(_ name: String, urls: [URL], manager: ImageManager, origin: DemoOrigin,
                    options: WebImageOptions = [], context: WebImageContext = .none,
                    bar: ProgressBar? = nil) async -> DemoPass {
        var pass = DemoPass(name: name, images: Array(repeating: nil, count: urls.count))
        let bytesBefore = origin.bytesServed.load(ordering: .relaxed)
        let start = ContinuousClock.now
        await withTaskGroup(of: (Int, Result<ImageManagerResult, WebImageError>).self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask {
                    do throws(WebImageError) {
                        let result = try await manager.image(for: url, options: options, context: context)
                        bar?.advance(bytes: result.byteCount)
                        return (index, .success(result))
                    } catch {
                        bar?.advance(failed: true)
                        return (index, .failure(error))
                    }
                }
            }
            for await (index, outcome) in group {
                switch outcome {
                case .success(let result):
                    pass.images[index] = result.image
                    if result.cacheType != .none { pass.cacheHits += 1 }
                case .failure(let error):
                    pass.failures.append(error)
                }
            }
        }
        pass.seconds = (ContinuousClock.now - start).milliseconds / 1000
        bar?.finish()
        pass.bytesDownloaded = origin.bytesServed.load(ordering: .relaxed) - bytesBefore
        return pass
    }

    /// The pass's row in the demo table.
    var row: [String] {
        let rate = seconds > 0 ? Double(loaded) / seconds : 0
        return [name, "\(loaded)/\(images.count)", String(format: "%.0f", rate), ByteCountText.format(bytesDownloaded),
                String(cacheHits), String(format: "%.0f", seconds * 1000)]
    }
}
