import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Fault matrix, through ``ImageManager``, file-system side: the cache directory deleted or made
/// unwritable under a running manager. The disk cache is a cache: a failed write must not lose
/// the downloaded image or fail the load, and the cache works again once the directory does.
@Suite("Fault matrix: cache directory faults under a running image manager")
struct FaultMatrixManagerDiskTests {
    /// How the cache directory is made unwritable. Tests run as root, so permission bits stop
    /// nothing: a regular file takes the directory's place, or the directory is made immutable.
    enum Unwritable: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case fileInItsPlace, immutable
        var testDescription: String { rawValue }

        /// Applies the fault; false when this machine cannot (no `chattr`, or no permission).
        func apply(to path: String) throws -> Bool {
            switch self {
            case .fileInItsPlace:
                try? FileManager.default.removeItem(atPath: path)
                return FileManager.default.createFile(atPath: path, contents: Data("in the way".utf8))
            case .immutable:
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
                return runChattr("+i", path)
            }
        }

        func undo(at path: String) throws {
            switch self {
            case .fileInItsPlace: try FileManager.default.removeItem(atPath: path)
            case .immutable: _ = runChattr("-i", path)
            }
        }
    }

    @Test(arguments: Unwritable.allCases, [false, true])
    func anUnwritableDirectoryStillDeliversTheImage(_ fault: Unwritable, waitStoreCache: Bool) async throws {
        try await withScriptedManager { h in
            let picture = ManagerFixtures.png(10, 8)
            let url = h.serve("/kept.png", .body(picture, contentType: "image/png")), key = url.absoluteString
            guard try fault.apply(to: h.cache.diskCachePath) else { try Test.cancel("chattr +i is not permitted here") }
            let undo = { try? fault.undo(at: h.cache.diskCachePath) }
            defer { undo() }

            // With waitStoreCache the completion comes after the failed write, without it before.
            let options: WebImageOptions = waitStoreCache ? [.waitStoreCache] : []
            let result = try await ManagerFaultChecks.load(h.manager, url, options: options)
            #expect(result.error == nil)
            #expect(result.image?.pixelSize == PixelSize(width: 10, height: 8))
            #expect(result.data == Data(picture) && result.cacheType == .none)
            h.drain()
            #expect(!h.manager.isRunning)
            #expect(h.cache.imageFromMemoryCache(forKey: key) != nil, "memory still holds it")
            #expect(!h.cache.diskImageDataExists(forKey: key))
            #expect(!h.manager.isFailedURL(url))
            // No entry and no temporary file anywhere (the file in the way is the fault itself).
            let expected = fault == .fileInItsPlace ? [URL(fileURLWithPath: h.cache.diskCachePath).lastPathComponent] : []
            #expect(ManagerFaultChecks.files(under: h.caches.sandbox.root.path) == expected)

            // The directory is usable again: the next download is written.
            undo()
            h.cache.clearMemory()
            let again = try await h.manager.image(for: url)
            #expect(again.cacheType == .none && h.loader.requestCount(url) == 2)
            h.drain()
            #expect(h.cache.diskImageData(forKey: key) == Data(picture))
        }
    }

    @Test func aDirectoryDeletedUnderARunningLoadIsRecreatedByItsStore() async throws {
        try await withScriptedManager { h in
            let first = h.serve("/first.png", .png(4, 4))
            let second = h.serve("/second.png", .body(ManagerFixtures.jpeg(9, 7), contentType: "image/jpeg"))
            _ = try await h.manager.image(for: first)
            h.drain()
            #expect(h.cache.diskImageDataExists(forKey: first.absoluteString))

            // Hold the cache's I/O queue so the second load is running (in its disk query) while
            // the directory goes away, then let it go on.
            let gate = h.caches.blockIO()
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: second, completed: recorder.completion)
            #expect(h.manager.isRunning)
            let removed = (try? FileManager.default.removeItem(atPath: h.cache.diskCachePath)) != nil
            gate.open()
            #expect(removed)

            let result = try #require(await recorder.waitForFinals().first)
            #expect(await recorder.settled(operation).count == 1)
            #expect(result.error == nil && result.image?.pixelSize == PixelSize(width: 9, height: 7))
            h.drain()
            #expect(!h.manager.isRunning)
            #expect(h.cache.diskImageDataExists(forKey: second.absoluteString), "the store recreated the directory")
            #expect(!h.cache.diskImageDataExists(forKey: first.absoluteString), "gone with the directory")
            // Memory still answers the first; once evicted, it is downloaded again rather than failing.
            #expect(try await h.manager.image(for: first).cacheType == .memory)
            h.cache.clearMemory()
            #expect(try await h.manager.image(for: first).cacheType == .none)
            #expect(h.loader.requestCount(first) == 2)
        }
    }
}
