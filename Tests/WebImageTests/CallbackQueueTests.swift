import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Callback queue")
struct CallbackQueueTests {
    @Test func invokeRunsInline() {
        let ran = Atomic<Bool>(false)
        CallbackQueue.immediate.execute { ran.store(true, ordering: .relaxed) }
        let didRun = ran.load(ordering: .relaxed)
        #expect(didRun)
    }

    @Test func dispatchIsAsynchronous() async {
        let queue = CallbackQueue(DispatchQueue(label: "t.dispatch"), policy: .dispatch)
        let ran = Atomic<Bool>(false)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.execute { ran.store(true, ordering: .relaxed); done.resume() }
            // The block cannot have run synchronously inside execute: we return first.
        }
        let didRun = ran.load(ordering: .relaxed)
        #expect(didRun)
    }

    @Test func safeExecuteRunsInlineOnItsOwnQueue() async {
        let dispatchQueue = DispatchQueue(label: "t.safe")
        let queue = CallbackQueue(dispatchQueue)
        let inline = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            dispatchQueue.async {
                #expect(queue.isCurrent)
                let flag = Atomic<Bool>(false)
                queue.execute { flag.store(true, ordering: .relaxed) }
                done.resume(returning: flag.load(ordering: .relaxed))
            }
        }
        #expect(inline)
        #expect(!queue.isCurrent)
    }
}
