/// How hard memory is pressed, from none to every task stalled.
public enum MemoryPressureLevel: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// No signal since pressure last eased.
    case none = 0
    /// Some tasks stalled on memory past the threshold (PSI `some`), or the cgroup passed its
    /// `memory.high`.
    case some = 1
    /// Every non-idle task stalled at once past the threshold (PSI `full`), or the cgroup hit its
    /// `memory.max` or the OOM killer ran in it.
    case full = 2

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `none`, `some` or `full`, as `/health` reports it.
    public var description: String {
        switch self {
        case .none: "none"
        case .some: "some"
        case .full: "full"
        }
    }
}

/// A cgroup v2 `memory.events` counter that rose.
public enum MemoryLimitEvent: String, Sendable, Hashable {
    /// The cgroup's usage passed `memory.high` and was throttled into reclaim.
    case high
    /// The cgroup's usage reached `memory.max` (allocation had to reclaim or fail).
    case max
    /// The cgroup ran out of memory (`oom` or `oom_kill` rose).
    case oom
}

/// One report of a ``MemoryPressureSource``.
public enum MemoryPressureSignal: Sendable, Hashable {
    /// A PSI trigger fired: tasks stalled on memory for longer than the threshold within the window.
    case stall(MemoryPressureLevel)
    /// A `memory.events` counter of the process's cgroup rose.
    case limit(MemoryLimitEvent)
    /// No stall and no event for the source's quiet period: pressure is over.
    case eased

    /// The level this signal puts the monitor in (``MemoryPressureLevel/none`` for ``eased``).
    public var level: MemoryPressureLevel {
        switch self {
        case .stall(let level): level
        case .limit(.high): .some
        case .limit(.max), .limit(.oom): .full
        case .eased: .none
        }
    }

    /// The share of what a memory cache or pool holds that it drops on this signal:
    /// - a `some` stall or a `memory.high` event: **half** (0.5), least recently used first;
    /// - a `full` stall, a `memory.max` event or an OOM kill: **everything** (1.0), as SDWebImage
    ///   empties its memory cache on a memory warning;
    /// - ``eased``: nothing (0).
    public var shrinkFraction: Double {
        switch level {
        case .none: 0
        case .some: 0.5
        case .full: 1
        }
    }
}
