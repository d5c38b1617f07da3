import Testing
@testable import WebImageServer

/// The work limiter paused (as under memory pressure): no slot is given out, requests wait in
/// their place, and resuming gives the free slots to the longest waiters first.
@Suite("Server: work limiter pause")
struct WorkLimiterPauseTests {
    @Test func resumingGivesTheFreeSlotsToTheLongestWaitersFirst() async throws {
        let limiter = WorkLimiter(workers: 2, maxQueue: 8)
        let waiting = Watched(0)
        limiter.slotWaits.set { count in waiting.update { $0 = count } }
        let started = Watched<[Int]>([])
        let gate = TestGate()
        limiter.setPaused(true)
        #expect(limiter.isPaused)
        var tasks: [Task<Void, any Error>] = []
        for index in 1...3 {
            tasks.append(Task {
                try await limiter.admit {
                    try await limiter.run {
                        started.update { $0.append(index) }
                        await gate.wait()
                    }
                }
            })
            // One at a time, so the arrival order is known.
            await waiting.wait("request \(index) to wait for a slot") { $0 == index }
        }
        #expect(limiter.load.running == 0)
        #expect(started.value.isEmpty)
        limiter.setPaused(false)
        await started.wait("the first two requests to get a slot") { $0.count == 2 }
        #expect(started.value.sorted() == [1, 2])
        #expect(limiter.load.running == 2, "no more slots than workers")
        gate.open()
        for task in tasks { try await task.value }
        #expect(started.value.last == 3)
        #expect(limiter.load.running == 0 && limiter.load.waiting == 0)
    }

    @Test func aSlotFreedWhilePausedIsNotHandedOn() async throws {
        let limiter = WorkLimiter(workers: 1, maxQueue: 8)
        let waiting = Watched(0)
        limiter.slotWaits.set { count in waiting.update { $0 = count } }
        let first = TestGate()
        let firstRunning = TestGate()
        let done = Watched<[Int]>([])
        let holder = Task {
            try await limiter.run {
                firstRunning.open()
                await first.wait()
            }
            done.update { $0.append(1) }
        }
        await firstRunning.wait()
        let waiter = Task {
            try await limiter.run { done.update { $0.append(2) } }
        }
        await waiting.wait("the second request to wait") { $0 == 1 }
        limiter.setPaused(true)
        first.open()
        try await holder.value
        #expect(limiter.load.running == 0, "the freed slot stays free while paused")
        #expect(done.value == [1])
        limiter.setPaused(false)
        try await waiter.value
        #expect(done.value == [1, 2])
    }
}
