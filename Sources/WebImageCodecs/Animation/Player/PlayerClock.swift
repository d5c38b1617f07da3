/// Any `Clock` as time since the player was made, so the player needs no generic parameter and
/// tests can drive it with a manual clock.
struct PlayerClock: Sendable {
    /// Time since the clock was wrapped.
    let now: @Sendable () -> Duration
    /// Sleeps until `now()` reaches the given time; throws `CancellationError` when cancelled.
    let sleep: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleep = { deadline in try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil) }
    }
}
