import Foundation
import Synchronization
import Testing
@testable import WebImageLoading

/// The one exactly-once primitive every operation and token builds on, and the async bridge over it.
@Suite("ExactlyOnce and awaitCallback")
struct ExactlyOnceTests {
    /// Counts cancellations of a stage.
    final class Stage: WebImageOperation {
        let cancels = Mutex(0)
        func cancel() { cancels.withLock { $0 += 1 } }
    }

    @Test func endHandsTheReceiverToTheFirstCallerOnly() {
        let once = ExactlyOnce<String, Never>("receiver")
        #expect(once.receiver == "receiver")
        #expect(once.end() == "receiver")
        #expect(once.end() == nil)
        #expect(once.cancel() == nil)
        #expect(once.isEnded && !once.isCancelled)
        #expect(once.receiver == nil)
    }

    @Test func cancelTakesTheReceiverAndTheStageAndRefusesALateStage() {
        let once = ExactlyOnce<String, Stage>("receiver")
        let first = Stage()
        #expect(once.setStage(first))
        let taken = once.cancel()
        #expect(taken?.receiver == "receiver")
        #expect(taken?.stage === first)
        #expect(once.end() == nil)
        #expect(once.isCancelled)
        // A stage that arrives after the cancellation is refused: its owner stops it.
        #expect(!once.setStage(Stage()))
    }

    @Test func aStageIsKeptForInspectionAfterTheWorkEnded() {
        let once = ExactlyOnce<Int, Stage>(1)
        let stage = Stage()
        once.setStage(stage)
        _ = once.end()
        #expect(once.stage === stage)
        // A stage whose result raced ahead of the call recording it is still kept.
        let late = Stage()
        #expect(once.setStage(late))
        #expect(once.stage === late)
    }

    @Test func aRunningStageIsChangedOnlyUntilTheWorkEnds() {
        let once = ExactlyOnce<Int, Int>(1)
        #expect(once.withRunningStage { stage -> Int in stage = 5; return 7 } == 7)
        #expect(once.stage == 5)
        _ = once.end()
        #expect(once.withRunningStage { stage -> Int in stage = 9; return 7 } == nil)
        #expect(once.stage == 5, "an ended work's stage is left as it was")
        let cancelled = ExactlyOnce<Int, Int>(1)
        _ = cancelled.cancel()
        #expect(cancelled.withRunningStage { _ in true } == nil)
    }

    @Test func racingEndsAndCancelsHaveExactlyOneWinner() async {
        for _ in 0..<200 {
            let once = ExactlyOnce<Int, Never>(7)
            let winners = Stage()
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let won = index.isMultiple(of: 2) ? once.end() != nil : once.cancel()?.receiver != nil
                        if won { winners.cancel() }
                    }
                }
            }
            #expect(winners.cancels.withLock { $0 } == 1)
        }
    }

    @Test func theLinkCancelsAStageAttachedAfterTheCancellation() {
        let link = CancellationLink()
        link.cancelStage()
        let stage = Stage()
        link.attach(stage)
        #expect(stage.cancels.withLock { $0 } == 1)
    }

    @Test func theLinkLetsGoOfItsStageOnceTheWorkFinished() {
        let link = CancellationLink()
        weak var attachedBeforeTheEnd: Stage?
        weak var attachedAfterTheEnd: Stage?
        do {
            let stage = Stage()
            attachedBeforeTheEnd = stage
            link.attach(stage)
        }
        #expect(attachedBeforeTheEnd != nil, "a running link keeps its stage, to cancel it")
        link.finish()
        #expect(attachedBeforeTheEnd == nil)
        do {
            // A result that raced ahead of its stage: the stage is neither kept nor cancelled.
            let late = Stage()
            attachedAfterTheEnd = late
            link.attach(late)
            #expect(late.cancels.withLock { $0 } == 0)
        }
        #expect(attachedAfterTheEnd == nil)
    }

    @Test func theLinkDoesNothingOnceTheWorkFinished() {
        let link = CancellationLink()
        let stage = Stage()
        link.attach(stage)
        link.finish()
        link.cancelStage()
        #expect(stage.cancels.withLock { $0 } == 0)
    }

    @Test func awaitCallbackReturnsAValueDeliveredBeforeTheStageIsReturned() async {
        let value = await awaitCallback { (deliver: @escaping @Sendable (Int) -> Void) -> (any WebImageOperation)? in
            deliver(42)
            deliver(43)
            return nil
        }
        #expect(value == 42)
    }

    @Test func awaitCallbackReturnsAValueDeliveredFromAnotherThread() async {
        let value = await awaitCallback { (deliver: @escaping @Sendable (String) -> Void) -> (any WebImageOperation)? in
            DispatchQueue.global().async { deliver("later") }
            return nil
        }
        #expect(value == "later")
    }

    @Test func cancellingTheTaskCancelsTheStageWhichDelivers() async {
        let stage = DeliveringStage()
        let task = Task {
            await awaitCallback { (deliver: @escaping @Sendable (String) -> Void) -> (any WebImageOperation)? in
                stage.start(deliver)
                return stage
            }
        }
        await stage.waitUntilStarted()
        task.cancel()
        #expect(await task.value == "cancelled")
    }

    /// A stage whose cancellation delivers "cancelled", as the library's operations report a cancel.
    final class DeliveringStage: WebImageOperation {
        private struct State {
            var deliver: (@Sendable (String) -> Void)?
            var waiter: CheckedContinuation<Void, Never>?
        }
        private let state = Mutex(State())

        func start(_ deliver: @escaping @Sendable (String) -> Void) {
            let waiter = state.withLock { state in
                state.deliver = deliver
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }

        /// Returns once ``start(_:)`` ran (at once if it already did).
        func waitUntilStarted() async {
            await withCheckedContinuation { continuation in
                let started = state.withLock { state in
                    if state.deliver == nil { state.waiter = continuation }
                    return state.deliver != nil
                }
                if started { continuation.resume() }
            }
        }

        func cancel() { state.withLock { $0.deliver }?("cancelled") }
    }
}
