import Synchronization

/// A thread-safe list where the last element added has the highest priority, as SDWebImage's coder,
/// loader and cache managers order their members.
package final class PriorityList<Element: Sendable>: Sendable {
    private let state: Mutex<[Element]>

    package init(_ elements: [Element]) { state = Mutex(elements) }

    /// The elements, lowest priority first.
    package var elements: [Element] {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    /// Adds `element` with the highest priority.
    package func add(_ element: Element) { state.withLock { $0.append(element) } }

    /// Removes every element satisfying `predicate`.
    package func removeAll(where predicate: (Element) -> Bool) {
        state.withLock { $0.removeAll(where: predicate) }
    }

    /// The highest-priority element satisfying `predicate`.
    package func highest(where predicate: (Element) throws -> Bool) rethrows -> Element? {
        try elements.reversed().first(where: predicate)
    }
}
