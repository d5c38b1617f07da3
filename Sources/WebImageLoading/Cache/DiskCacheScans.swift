import WebImageCodecs

/// The directory scans running on a ``DiskCache`` and the index changes made while they run.
///
/// A scan lists the directory without holding the cache's lock; when it ends, the changes the
/// cache made since it began are replayed onto its result, which then becomes the index. Of
/// overlapping scans, only the newest to finish first counts; an older one finishing later is
/// dropped, as is every scan running when the directory was recreated.
struct DiskCacheScans: Sendable {
    /// One change to the index.
    enum Change: Sendable {
        case set(String, DiskCacheIndex.Entry)
        case remove(String)
        case clear
    }

    /// A running scan: its number and where its part of the journal begins.
    struct Ticket: Sendable {
        fileprivate let number: Int
        fileprivate let journalStart: Int
    }

    private var running = 0
    private var started = 0
    /// Scans numbered up to this one may no longer become the index.
    private var superseded = 0
    /// The changes since the oldest running scan began; empty when none runs.
    private var journal: [Change] = []

    /// Notes a change made to the index, for the scans running now.
    mutating func note(_ change: Change) {
        if running > 0 { journal.append(change) }
    }

    /// Starts a scan.
    mutating func begin() -> Ticket {
        running += 1
        started += 1
        return Ticket(number: started, journalStart: journal.count)
    }

    /// Ends a scan: its result brought up to date, or nil when it no longer counts.
    mutating func finish(_ ticket: Ticket, scanned: DiskCacheIndex) -> DiskCacheIndex? {
        defer {
            running -= 1
            if running == 0 { journal.removeAll() }
        }
        guard ticket.number > superseded else { return nil }
        superseded = ticket.number
        var index = scanned
        for change in journal[ticket.journalStart...] {
            switch change {
            case .set(let name, let entry): index.set(entry, for: name)
            case .remove(let name): index.remove(name)
            case .clear: index = DiskCacheIndex()
            }
        }
        return index
    }

    /// Makes every running scan's result not count (the directory they list was replaced).
    mutating func discardRunning() {
        superseded = started
    }
}
