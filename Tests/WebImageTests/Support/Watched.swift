import Dispatch
import Foundation
import Synchronization
import Testing

/// How long a test waits for an event before it gives up and fails. Only a broken test ever waits
/// this long: every wait ends as soon as its event happens. The bound is longer than a whole
/// parallel run takes (about 80 s on two cores): every test starts at once, so an event that needs
/// the cooperative pool can wait behind all the CPU-bound tests before it happens.
enum TestTimeout {
    static var standard: Duration { .seconds(seconds) }

    /// ``standard`` in seconds.
    static var seconds: Double { 240 * SanitizerRun.slowdown }

    /// The download timeout of tests that do not test timeouts (seconds).
    static var download: Double { seconds }
}

/// A value under a lock that tests can await: every change wakes the waiters whose condition now
/// holds. Waiting is on continuations, never on a clock; the timeout only turns a hang into a
/// failure (it fires on a dispatch timer, so a starved cooperative pool cannot stretch it).
final class Watched<Value: Sendable>: Sendable {
    private struct Waiter {
        let condition: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var value: Value
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
        /// Waits cancelled before their continuation was registered.
        var cancelledIDs: Set<UInt64> = []
    }

    private let state: Mutex<State>

    init(_ value: Value) {
        state = Mutex(State(value: value))
    }

    /// The current value.
    var value: Value { state.withLock { $0.value } }

    /// Changes the value and wakes every waiter whose condition now holds.
    @discardableResult
    func update<Result: Sendable>(_ body: @Sendable (inout Value) -> Result) -> Result {
        let (result, ready) = state.withLock { state -> (Result, [CheckedContinuation<Bool, Never>]) in
            let result = body(&state.value)
            var ready: [CheckedContinuation<Bool, Never>] = []
            for (id, waiter) in state.waiters where waiter.condition(state.value) {
                ready.append(waiter.continuation)
                state.waiters[id] = nil
            }
            return (result, ready)
        }
        for continuation in ready { continuation.resume(returning: true) }
        return result
    }

    /// Waits until `condition` holds. Returns false when `timeout` passed first (and then records
    /// an issue naming `what`) or when the waiting task was cancelled (no issue). A nil timeout
    /// waits as long as it takes (for helpers that end their wait by cancellation).
    @discardableResult
    func wait(_ what: @autoclosure () -> String = "an event", timeout: Duration? = TestTimeout.standard,
              sourceLocation: SourceLocation = #_sourceLocation,
              until condition: @escaping @Sendable (Value) -> Bool) async -> Bool {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let happened = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let immediate = state.withLock { state -> Bool? in
                    if state.cancelledIDs.remove(id) != nil { return false }
                    if condition(state.value) { return true }
                    state.waiters[id] = Waiter(condition: condition, continuation: continuation)
                    return nil
                }
                if let immediate {
                    continuation.resume(returning: immediate)
                    return
                }
                guard let timeout else { return }
                // Weak: a wait that ended long before its timeout must not keep the value (and what
                // it holds) alive until the timer fires.
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(timeout.nanosecondCount))) { [weak self] in
                    let waiter = self?.state.withLock { $0.waiters.removeValue(forKey: id) }
                    waiter?.continuation.resume(returning: false)
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    state.cancelledIDs.insert(id)
                    return nil
                }
                return waiter
            }
            waiter?.continuation.resume(returning: false)
        }
        if !happened, timeout != nil, !Task.isCancelled {
            Issue.record("Timed out after \(timeout!) waiting for \(what())", sourceLocation: sourceLocation)
        }
        return happened
    }
}

/// A one-way latch: tests and helpers open it once and await it (or run a block when it opens).
final class TestGate: Sendable {
    private struct Blocks {
        var open = false
        var waiting: [(id: UInt64, block: @Sendable () -> Void)] = []
        var nextID: UInt64 = 0
    }

    private let isOpen = Watched(false)
    private let blocks = Mutex(Blocks())

    func open() {
        let waiting = blocks.withLock { state -> [@Sendable () -> Void] in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting.map(\.block)
        }
        isOpen.update { $0 = true }
        for block in waiting { block() }
    }

    var opened: Bool { isOpen.value }

    /// Runs `block` once the gate is open: now if it already is, else on the thread that opens it.
    /// Returns an id for ``forget(_:)``, or nil when the block already ran.
    @discardableResult
    func whenOpen(_ block: @escaping @Sendable () -> Void) -> UInt64? {
        let id = blocks.withLock { state -> UInt64? in
            guard !state.open else { return nil }
            state.nextID += 1
            state.waiting.append((state.nextID, block))
            return state.nextID
        }
        if id == nil { block() }
        return id
    }

    /// Drops a block that is no longer wanted (what it would act on is gone), and with it
    /// everything the block holds.
    func forget(_ id: UInt64) {
        blocks.withLock { state in state.waiting.removeAll { $0.id == id } }
    }

    /// Waits until the gate is open; false on timeout (an issue is recorded) or task cancellation.
    @discardableResult
    func wait(_ what: @autoclosure () -> String = "the gate to open", timeout: Duration? = TestTimeout.standard,
              sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await isOpen.wait(what(), timeout: timeout, sourceLocation: sourceLocation) { $0 }
    }
}

/// A thread-safe counter that tests can await.
final class Counter: Sendable {
    private let count = Watched(0)

    func increment() { count.update { $0 += 1 } }

    var value: Int { count.value }

    @discardableResult
    func wait(for target: Int, _ what: @autoclosure () -> String = "a count",
              sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await count.wait("\(what()) to reach \(target)", sourceLocation: sourceLocation) { $0 >= target }
    }
}

extension DispatchQueue {
    /// Waits until every block queued on this queue before the call has run (a barrier).
    func drained() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            async(flags: .barrier) { continuation.resume() }
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanosecondCount: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
