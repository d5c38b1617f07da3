/// The counters of a cgroup v2 `memory.events` file that mean pressure: `high`, `max`, `oom`
/// and `oom_kill` (the file's other lines are left out).
struct MemoryEventCounters: Sendable, Hashable {
    var high: UInt64 = 0
    var max: UInt64 = 0
    var oom: UInt64 = 0
    var oomKill: UInt64 = 0

    /// The counters in `text` (`name value` lines); a missing or unparsable line reads as 0.
    init(parsing text: String) {
        for line in text.split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let value = UInt64(fields[1]) else { continue }
            switch fields[0] {
            case "high": high = value
            case "max": max = value
            case "oom": oom = value
            case "oom_kill": oomKill = value
            default: break
            }
        }
    }

    init() {}

    /// The events whose counters rose from `earlier` to these, once each, in the order
    /// `high`, `max`, `oom` (an `oom_kill` counts as `oom`).
    func events(since earlier: MemoryEventCounters) -> [MemoryLimitEvent] {
        var events: [MemoryLimitEvent] = []
        if high > earlier.high { events.append(.high) }
        if max > earlier.max { events.append(.max) }
        if oom > earlier.oom || oomKill > earlier.oomKill { events.append(.oom) }
        return events
    }
}
