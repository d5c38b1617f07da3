import Foundation
import Testing
@testable import WebImageServer

/// Identical work in flight done once, and a caller that stops waiting leaves the others alone.
@Suite("Server: shared jobs")
struct SharedJobsTests {
    @Test func callersOfOneKeyShareOneRun() async throws {
        let jobs = SharedJobs<Int>()
        let runs = Counter()
        let gate = TestGate()
        let work: @Sendable () async throws -> Int = {
            runs.increment()
            await gate.wait(timeout: nil)
            return 42
        }
        async let first = jobs.value(for: "k", work: work)
        await runs.wait(for: 1, "the job to start")
        async let second = jobs.value(for: "k", work: work)
        gate.open()
        #expect(try await first == 42)
        #expect(try await second == 42)
        #expect(runs.value == 1)
        #expect(jobs.count == 0)
    }

    @Test func aCallerThatStopsWaitingLeavesTheJobToTheOthers() async throws {
        let waiting = Watched(0)
        let jobs = SharedJobs<Int> { _, count in waiting.update { $0 = count } }
        let runs = Counter()
        let gate = TestGate()
        let work: @Sendable () async throws -> Int = {
            runs.increment()
            await gate.wait(timeout: nil)
            try Task.checkCancellation()
            return 7
        }
        let leaving = Task { try await jobs.value(for: "k", work: work) }
        await runs.wait(for: 1, "the job to start")
        let staying = Task { try await jobs.value(for: "k", work: work) }
        // Both wait on the one job before the first leaves.
        await waiting.wait("the second caller to join") { $0 == 2 }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        gate.open()
        #expect(try await staying.value == 7)
        #expect(runs.value == 1)
    }

    @Test func theLastCallerLeavingCancelsTheJob() async throws {
        let jobs = SharedJobs<Int>()
        let started = Counter()
        let cancelled = Counter()
        let caller = Task {
            try await jobs.value(for: "k") {
                started.increment()
                do {
                    try await Task.sleep(for: .seconds(3600))
                } catch {
                    cancelled.increment()
                    throw error
                }
                return 1
            }
        }
        await started.wait(for: 1, "the job to start")
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        await cancelled.wait(for: 1, "the job to be cancelled")
        #expect(jobs.count == 0)
        // A new caller starts a new job.
        #expect(try await jobs.value(for: "k") { 2 } == 2)
    }

    @Test func aCancelledCallerDoesNotStartAJob() async throws {
        let jobs = SharedJobs<Int>()
        let runs = Counter()
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await jobs.value(for: "k") { runs.increment(); return 1 }
        }
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(runs.value == 0)
        #expect(jobs.count == 0)
    }
}
