import Foundation
import Synchronization
import Testing
@testable import WebImageCodecs
@testable import WebImageLoading

/// The query that spans several caches, driven answer by answer: one report, the first image
/// wins, and children that are no longer wanted are cancelled.
@Suite("CachesManager query over several caches")
struct CachesManagerQueryTests {
    /// A child query that counts its cancellations.
    final class Child: ImageCacheOperation {
        let cancels = Mutex(0)
        var cancelCount: Int { cancels.withLock { $0 } }
        func cancel() { cancels.withLock { $0 += 1 } }
    }

    private func hit() -> ImageCacheQueryResult {
        ImageCacheQueryResult(image: Image(bitmap: TestBitmaps.gradient(width: 2, height: 2)), data: nil, cacheType: .memory)
    }

    @Test func theFirstImageReportsOnceAndCancelsTheOtherChildren() {
        let calls = CallRecorder<ImageCacheQueryResult>()
        let query = CachesManagerQuery(count: 3, callbackQueue: .immediate) { calls.record($0) }
        let children = [Child(), Child(), Child()]
        for (index, child) in children.enumerated() { query.attach(child, index: index) }
        #expect(!query.receive(.none, index: 0), "a miss with caches left to answer does not report")
        #expect(query.receive(hit(), index: 1))
        #expect(calls.count == 1 && calls.last?.image != nil)
        #expect(children.map(\.cancelCount) == [0, 0, 1], "only the cache still working is cancelled")
        // A late answer and a late child change nothing; the late child is stopped at once.
        #expect(query.receive(hit(), index: 2))
        let late = Child()
        query.attach(late, index: 2)
        #expect(late.cancelCount == 1)
        query.cancel()
        #expect(calls.count == 1)
    }

    @Test func missesEverywhereReportNoneOnce() {
        let calls = CallRecorder<ImageCacheQueryResult>()
        let query = CachesManagerQuery(count: 2, callbackQueue: .immediate) { calls.record($0) }
        #expect(!query.receive(.none, index: 0))
        #expect(query.receive(.none, index: 1))
        #expect(calls.count == 1 && calls.last?.image == nil)
    }

    @Test func aCancelBeforeAnyAnswerReportsNoneOnceAndCancelsEveryChild() {
        let calls = CallRecorder<ImageCacheQueryResult>()
        let query = CachesManagerQuery(count: 2, callbackQueue: .immediate) { calls.record($0) }
        let children = [Child(), Child()]
        for (index, child) in children.enumerated() { query.attach(child, index: index) }
        query.cancel()
        query.cancel()
        #expect(calls.count == 1 && calls.last?.image == nil)
        #expect(children.map(\.cancelCount) == [1, 1])
        #expect(query.receive(hit(), index: 0), "an answer after the cancel is dropped")
        #expect(calls.count == 1)
    }

    @Test func racingAnswersReportExactlyOnce() async {
        for _ in 0..<200 {
            let calls = CallRecorder<ImageCacheQueryResult>()
            let query = CachesManagerQuery(count: 2, callbackQueue: .immediate) { calls.record($0) }
            let image = hit()
            await withTaskGroup(of: Void.self) { group in
                group.addTask { query.receive(image, index: 0) }
                group.addTask { query.receive(.none, index: 1) }
            }
            #expect(calls.count == 1)
            #expect(calls.last?.image != nil, "the hit wins whichever answer arrives first")
        }
    }
}
