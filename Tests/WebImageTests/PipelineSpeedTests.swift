import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The pieces that make the download pipeline cheaper per image keep their guarantees:
/// serial, ordered callbacks; prefaulted bitmaps with intact pixels; unique temporary files.
@Suite("Pipeline speed")
struct PipelineSpeedTests {
    /// Records callbacks: their order, and whether two ever ran at once.
    final class Recorder: Sendable {
        let order = Mutex<[Int]>([])
        let ran = Counter()
        let running = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)

        func callback(_ value: Int) -> SerialCallbacks.Callback {
            { [self] in
                if running.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
                    overlapped.store(true, ordering: .relaxed)
                }
                order.withLock { $0.append(value) }
                running.subtract(1, ordering: .sequentiallyConsistent)
                ran.increment()
            }
        }

        var values: [Int] { order.withLock { $0 } }
    }

    @Test func drainHereRunsQueuedCallbacksInOrderOnTheCallingThread() {
        let callbacks = SerialCallbacks()
        let recorder = Recorder()
        for value in 0..<5 { callbacks.enqueue(recorder.callback(value)) }
        #expect(recorder.values.isEmpty, "enqueue alone must not run anything")
        callbacks.drainHere()
        #expect(recorder.values == [0, 1, 2, 3, 4])
        callbacks.drainHere()
        #expect(recorder.values == [0, 1, 2, 3, 4], "a drain with nothing queued runs nothing")
    }

    @Test func drainElsewhereRunsWhileTheCallerIsBlocked() {
        let callbacks = SerialCallbacks()
        let ran = DispatchSemaphore(value: 0)
        callbacks.enqueue { ran.signal() }
        callbacks.drainElsewhere()
        // The caller blocks here, so only another thread can run the callback.
        #expect(ran.wait(timeout: .now() + 20) == .success)
    }

    @Test func mixedDrainsFromManyThreadsKeepOrderAndNeverOverlap() async {
        let callbacks = SerialCallbacks()
        let recorder = Recorder()
        let enqueueLock = Mutex(0)
        let count = 2_000
        DispatchQueue.concurrentPerform(iterations: count) { index in
            // The value is taken and queued under one lock, as the download's state lock does.
            enqueueLock.withLock { next in
                callbacks.enqueue(recorder.callback(next))
                next += 1
            }
            if index % 2 == 0 { callbacks.drainHere() } else { callbacks.drainElsewhere() }
        }
        await recorder.ran.wait(for: count, "callbacks run")
        #expect(recorder.values == Array(0..<count))
        let overlapped = recorder.overlapped.load(ordering: .relaxed)
        #expect(!overlapped)
    }

    @Test func largeBitmapsArePrefaultedAndKeepEveryByte() {
        let width = 700, height = 500  // 1.4 MB: over the prefault threshold
        #expect(width * height * 4 >= BitmapMemory.threshold)
        let bitmap = Bitmap(width: width, height: height) { buffer in
            for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 12) }
        }
        #expect(bitmap.byteCount == width * height * 4)
        let intact = bitmap.pixels.indices.allSatisfy { bitmap.pixels[$0] == UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }
        #expect(intact)
    }

    @Test func temporaryFilesGetDistinctNamesWithoutClashing() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-tmpnames-\(UUID().uuidString)").path
        try DiskCacheFileSystem.createDirectory(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let paths = try (0..<50).map { index in
            try DiskCacheFileSystem.writeTemporaryFile(Data([UInt8(index)]), inDirectory: directory, date: 1_000_000)
        }
        #expect(Set(paths).count == paths.count)
        #expect(paths.allSatisfy { ($0 as NSString).lastPathComponent.hasPrefix(DiskCacheFileSystem.temporaryPrefix) })
        let contents = paths.map { FileManager.default.contents(atPath: $0) }
        #expect(contents == (0..<50).map { Data([UInt8($0)]) })
    }
}
