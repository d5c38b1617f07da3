import Foundation
import Testing
@testable import WebImage
@testable import WebImageLoading
@testable import WebImageServer

/// A result or source file on disk cut short (a power loss) is never served: the server reads it as
/// a miss, deletes it and makes the result again.
@Suite("Server: stores on disk are whole or misses")
struct ServerStoreIntegrityTests {
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 400, height: 300)))

    /// The one entry file in `namespace` under `root`, or in the packed layout its one segment.
    private func onlyEntry(_ root: URL, _ namespace: String, _ layout: DiskCacheLayout = .files) throws -> String {
        var directory = root.appendingPathComponent(namespace).path
        if layout == .packed { directory += "/" + PackedStore.directoryName }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            layout == .packed ? $0.hasSuffix(".seg") : !$0.hasPrefix(".")
        }
        try #require(names.count == 1, "\(namespace) holds \(names)")
        return directory + "/" + names[0]
    }

    @Test(arguments: DiskCacheLayout.allCases)
    func truncatedResultAndSourceAreMadeAgainNotServed(layout: DiskCacheLayout) async throws {
        let sandbox = DiskCacheSandbox()
        defer { sandbox.remove() }
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let configuration = loopbackServerConfiguration {
                $0.cacheDirectory = sandbox.root
                $0.diskLayout = layout
            }
            let path = "/insecure/rs:fit:120:120/plain/http://127.0.0.1:\(origin.port)/photo.jpg@png"
            let made = try await withImageServer(configuration) { server in
                try await server.get(path)
            }
            #expect(made.status == 200)
            let result = try onlyEntry(sandbox.root, "webimage-serve-results", layout)
            let source = try onlyEntry(sandbox.root, "webimage-serve-sources", layout)
            // Power lost before the data blocks reached the disk: the names survive, half the bytes do not.
            for file in [result, source] {
                let size = try #require(DiskCacheFileSystem.info(atPath: file)?.size)
                #expect(truncate(file, off_t(size / 2)) == 0)
            }
            try await withImageServer(configuration) { server in
                let again = try await server.get(path)
                #expect(again.status == 200)
                #expect(again.body == made.body)
                #expect(origin.requestCount("/photo.jpg") == 2, "the cut source was fetched again")
            }
            // Both stores hold whole entries again.
            guard layout == .files else {
                try await withImageServer(configuration) { server in
                    let third = try await server.get(path)
                    #expect(third.body == made.body)
                    #expect(origin.requestCount("/photo.jpg") == 2, "the source was stored whole")
                }
                return
            }
            let stored = try #require(FileManager.default.contents(atPath: try onlyEntry(sandbox.root, "webimage-serve-results")))
            #expect(DiskCacheTrailer.payload(of: stored).map { Array($0) } == Array(made.body))
            let storedSource = try #require(FileManager.default.contents(atPath: try onlyEntry(sandbox.root, "webimage-serve-sources")))
            #expect(DiskCacheTrailer.payload(of: storedSource).map { Array($0) } == photo)
        }
    }
}
