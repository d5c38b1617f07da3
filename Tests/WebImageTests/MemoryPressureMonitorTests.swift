import Synchronization
import Testing
@testable import WebImageLoading

/// The memory-pressure monitor: it runs its source while observed, tells observers every signal
/// with the level it puts memory pressure at, and goes back to `none` when pressure eases.
@Suite("Memory pressure: monitor")
struct MemoryPressureMonitorTests {
    @Test func theSourceRunsWhileTheMonitorIsObserved() {
        let source = ScriptedPressureSource()
        let monitor = MemoryPressureMonitor(source: source)
        #expect(source.starts == 0)
        let first = monitor.observe { _ in }
        let second = monitor.observe { _ in }
        #expect(source.starts == 1)
        first.cancel()
        #expect(source.isRunning)
        second.cancel()
        #expect(!source.isRunning)
        #expect(source.stops == 1)
        second.cancel()
        #expect(source.stops == 1, "a second cancel changes nothing")
    }

    @Test func releasingAnObservationStopsTheSource() {
        let source = ScriptedPressureSource()
        let monitor = MemoryPressureMonitor(source: source)
        var observation: MemoryPressureObservation? = monitor.observe { _ in }
        #expect(source.isRunning)
        _ = observation
        observation = nil
        #expect(!source.isRunning)
    }

    @Test func theLevelIsTheHighestSignalUntilPressureEases() {
        let source = ScriptedPressureSource()
        let monitor = MemoryPressureMonitor(source: source)
        let updates = Mutex<[MemoryPressureUpdate]>([])
        let observation = monitor.observe { update in updates.withLock { $0.append(update) } }
        source.send(.limit(.high))
        #expect(monitor.status.level == .some)
        source.send(.stall(.full))
        source.send(.stall(.some))
        #expect(monitor.status.level == .full, "a lower signal keeps the higher level")
        source.send(.eased)
        #expect(monitor.status.level == .none)
        #expect(monitor.status.signals == 3, "eased is not a signal of pressure")
        #expect(monitor.status.lastSignal == .eased)
        #expect(updates.withLock { $0 } == [
            MemoryPressureUpdate(signal: .limit(.high), level: .some, previousLevel: .none),
            MemoryPressureUpdate(signal: .stall(.full), level: .full, previousLevel: .some),
            MemoryPressureUpdate(signal: .stall(.some), level: .full, previousLevel: .full),
            MemoryPressureUpdate(signal: .eased, level: .none, previousLevel: .full),
        ])
        observation.cancel()
    }

    @Test func stoppingTheSourceForgetsThePressure() {
        let source = ScriptedPressureSource()
        let monitor = MemoryPressureMonitor(source: source)
        let observation = monitor.observe { _ in }
        source.send(.stall(.full))
        observation.cancel()
        #expect(monitor.status.level == .none)
        #expect(!source.send(.stall(.some)), "a stopped source tells nobody")
    }

    @Test func eachSignalHasItsDocumentedShare() {
        #expect(MemoryPressureSignal.stall(.some).shrinkFraction == 0.5)
        #expect(MemoryPressureSignal.limit(.high).shrinkFraction == 0.5)
        #expect(MemoryPressureSignal.stall(.full).shrinkFraction == 1)
        #expect(MemoryPressureSignal.limit(.max).shrinkFraction == 1)
        #expect(MemoryPressureSignal.limit(.oom).shrinkFraction == 1)
        #expect(MemoryPressureSignal.eased.shrinkFraction == 0)
    }
}
