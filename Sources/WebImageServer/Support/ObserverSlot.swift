import Synchronization

/// One observer that can be set after the thing it observes was made (tests set it to wait on
/// events); calling an empty slot does nothing.
final class ObserverSlot<Event: Sendable>: Sendable {
    private let observer = Mutex<(@Sendable (Event) -> Void)?>(nil)

    /// Makes `body` the observer.
    func set(_ body: @escaping @Sendable (Event) -> Void) {
        observer.withLock { $0 = body }
    }

    /// Tells the observer, if any, of `event`.
    func callAsFunction(_ event: Event) {
        observer.withLock { $0 }?(event)
    }
}
