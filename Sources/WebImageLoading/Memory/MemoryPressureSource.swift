/// Where memory-pressure signals come from. ``PSIMemoryPressureSource`` reads Linux's pressure
/// stall information; tests inject a source they drive by hand, so a ``MemoryPressureMonitor``
/// reacts to exactly the signals they send.
public protocol MemoryPressureSource: AnyObject, Sendable {
    /// Starts watching and delivers each signal to `deliver`, from any thread, until ``stop()``.
    /// Called once per start; a source that cannot watch anything delivers nothing.
    func start(_ deliver: @escaping @Sendable (MemoryPressureSignal) -> Void)

    /// Stops watching: once it returns, `deliver` is not called again. Safe to call when stopped.
    func stop()

    /// What is watched, for `/health` and logs (a file path, or `none`); read after ``start(_:)``.
    var watching: String { get }
}
