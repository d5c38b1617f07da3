import Synchronization

/// Follows a ``MemoryPressureSource`` and tells its observers about each signal, with the level
/// memory pressure is at: Linux's answer to the memory warnings iOS gives SDWebImage.
///
/// The source runs while the monitor has observers: the first ``observe(_:)`` starts it, and
/// cancelling the last observation stops it (and sets the level back to ``MemoryPressureLevel/none``).
/// The level is the highest of the signals since pressure last eased.
///
/// ```swift
/// let observation = ImageManager.shared.followMemoryPressure()   // on MemoryPressureMonitor.shared
/// ```
///
/// Handlers run on the source's thread, one signal at a time; they must be quick and must not
/// start or cancel observations of the same monitor.
public final class MemoryPressureMonitor: Sendable {
    /// The process's monitor on the system's signals (``PSIMemoryPressureSource``), idle until
    /// something observes it.
    public static let shared = MemoryPressureMonitor(source: PSIMemoryPressureSource())

    /// The source signals come from.
    public let source: any MemoryPressureSource

    private struct State {
        var level = MemoryPressureLevel.none
        var signals = 0
        var lastSignal: MemoryPressureSignal?
        var observers: [UInt64: @Sendable (MemoryPressureUpdate) -> Void] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    /// Observations alive; guards starting and stopping the source (apart from `state`, which
    /// the source's thread takes while `stop()` waits for it).
    private let lifecycle = Mutex(0)

    /// A monitor on `source`; nothing runs until the first observation.
    public init(source: any MemoryPressureSource) {
        self.source = source
    }

    /// The level now, and what has been seen.
    public var status: MemoryPressureStatus {
        state.withLock { state in
            MemoryPressureStatus(level: state.level, signals: state.signals, lastSignal: state.lastSignal,
                                 watching: source.watching)
        }
    }

    /// Calls `handler` with every signal from now on, until the returned observation is
    /// cancelled or released. Starts the source when it is the first observation.
    public func observe(_ handler: @escaping @Sendable (MemoryPressureUpdate) -> Void) -> MemoryPressureObservation {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.observers[state.nextID] = handler
            return state.nextID
        }
        lifecycle.withLock { active in
            active += 1
            if active == 1 { source.start { [weak self] signal in self?.deliver(signal) } }
        }
        return MemoryPressureObservation { [weak self] in self?.cancel(id) }
    }

    /// Records `signal` and tells every observer. Sources call it through the closure given to
    /// `start`; tests may call it to inject a signal without a source.
    func deliver(_ signal: MemoryPressureSignal) {
        let (update, observers) = state.withLock { state in
            let previous = state.level
            if signal == .eased {
                state.level = .none
            } else {
                state.level = max(state.level, signal.level)
                state.signals += 1
            }
            state.lastSignal = signal
            return (MemoryPressureUpdate(signal: signal, level: state.level, previousLevel: previous),
                    Array(state.observers.values))
        }
        for observer in observers { observer(update) }
    }

    private func cancel(_ id: UInt64) {
        let removed = state.withLock { $0.observers.removeValue(forKey: id) != nil }
        guard removed else { return }
        lifecycle.withLock { active in
            active -= 1
            guard active == 0 else { return }
            source.stop()
            state.withLock { $0.level = .none }
        }
    }
}

/// One signal as observers see it: the signal and the level before and after it.
public struct MemoryPressureUpdate: Sendable, Hashable {
    /// What the source reported.
    public var signal: MemoryPressureSignal
    /// The level after the signal.
    public var level: MemoryPressureLevel
    /// The level before it.
    public var previousLevel: MemoryPressureLevel

    /// An update; the monitor makes them, tests may too.
    public init(signal: MemoryPressureSignal, level: MemoryPressureLevel, previousLevel: MemoryPressureLevel) {
        self.signal = signal
        self.level = level
        self.previousLevel = previousLevel
    }
}

/// What a ``MemoryPressureMonitor`` knows now.
public struct MemoryPressureStatus: Sendable, Hashable {
    /// The highest level signalled since pressure last eased.
    public var level: MemoryPressureLevel
    /// Signals of pressure (not counting ``MemoryPressureSignal/eased``) since the monitor was made.
    public var signals: Int
    /// The latest signal, if any.
    public var lastSignal: MemoryPressureSignal?
    /// What the source watches (``MemoryPressureSource/watching``).
    public var watching: String
}

/// An observation of a ``MemoryPressureMonitor``: cancel it (or let it go) to stop being told.
public final class MemoryPressureObservation: Sendable {
    private let onCancel: Mutex<(@Sendable () -> Void)?>

    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Mutex(onCancel)
    }

    /// Stops the handler being called; the last observation of a monitor stops its source.
    public func cancel() {
        let action = onCancel.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit { cancel() }
}
