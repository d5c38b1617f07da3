import Foundation
import Synchronization

/// Linux's memory-pressure signals: PSI poll triggers and the cgroup's `memory.events`.
///
/// - **PSI triggers** (`some` and `full`) go on the process's cgroup v2 `memory.pressure` when it
///   exists and takes a trigger, else on the system-wide `/proc/pressure/memory`. A trigger fires
///   when tasks stalled on memory for more than its threshold within a 2-second window (the
///   window unprivileged processes may use); each firing is a ``MemoryPressureSignal/stall(_:)``.
/// - **`memory.events`** of the cgroup (not at the root, where there is none): a rise of `high`,
///   `max`, `oom` or `oom_kill` is a ``MemoryPressureSignal/limit(_:)``. The kernel wakes a poll
///   on the file when it changes; it is also read again every ``pollInterval``.
/// - After ``quietPeriod`` without either, it delivers ``MemoryPressureSignal/eased``.
///
/// The blocking `poll` runs on a thread of its own (not Swift's cooperative pool); ``stop()``
/// wakes it through a pipe and waits for it to end. Where there is neither PSI nor a
/// `memory.events` file (kernels before 4.20, PSI turned off), starting does nothing and
/// ``watching`` reads `none`.
public final class PSIMemoryPressureSource: MemoryPressureSource {
    /// Stall within the window that fires the `some` trigger (default 200 ms of 2 s: 10 %).
    public let someThreshold: Duration
    /// Stall within the window that fires the `full` trigger (default 100 ms of 2 s: 5 %).
    public let fullThreshold: Duration
    /// Time without a signal after which pressure has eased (default 4 s: two windows).
    public let quietPeriod: Duration
    /// How often `memory.events` is read again without a wake-up (default 2 s).
    public let pollInterval: Duration
    /// Where the signals are read.
    public let files: MemoryPressureFiles

    /// The PSI window: unprivileged processes may only use multiples of 2 s.
    static let window = Duration.seconds(2)

    private struct Running {
        let thread: PressureThread
        let watching: String
    }

    private let running = Mutex<Running?>(nil)
    private let lastWatching = Mutex("none")

    /// A source on `files` (by default this process's). Thresholds are clamped to (0, 2 s];
    /// the quiet period and poll interval to at least 10 ms.
    public init(someThreshold: Duration = .milliseconds(200), fullThreshold: Duration = .milliseconds(100),
                quietPeriod: Duration = .seconds(4), pollInterval: Duration = .seconds(2),
                files: MemoryPressureFiles = MemoryPressureFiles()) {
        let clampThreshold = { (value: Duration) in min(max(value, .microseconds(1)), Self.window) }
        self.someThreshold = clampThreshold(someThreshold)
        self.fullThreshold = clampThreshold(fullThreshold)
        self.quietPeriod = max(quietPeriod, .milliseconds(10))
        self.pollInterval = max(pollInterval, .milliseconds(10))
        self.files = files
    }

    /// What the running (or last) start watches: the PSI file and `memory.events` path, or `none`.
    public var watching: String { lastWatching.withLock { $0 } }

    public func start(_ deliver: @escaping @Sendable (MemoryPressureSignal) -> Void) {
        running.withLock { running in
            guard running == nil else { return }
            let watch = PressureWatch.open(files: files, some: someThreshold, full: fullThreshold)
            lastWatching.withLock { $0 = watch.description }
            guard !watch.isEmpty else { return }
            guard let thread = PressureThread(watch: watch, quietPeriod: quietPeriod,
                                              pollInterval: pollInterval, deliver: deliver) else {
                watch.close()
                lastWatching.withLock { $0 = "none" }
                return
            }
            running = Running(thread: thread, watching: watch.description)
        }
    }

    public func stop() {
        let stopping = running.withLock { running in
            defer { running = nil }
            return running
        }
        stopping?.thread.stop()
    }

    deinit { stop() }
}

/// The open files one start of ``PSIMemoryPressureSource`` polls.
struct PressureWatch: Sendable {
    /// PSI trigger descriptors and the level each one signals.
    var triggers: [(fd: Int32, level: MemoryPressureLevel)] = []
    var pressurePath: String?
    var eventsFD: Int32 = -1
    var eventsPath: String?
    /// `memory.events` as it read when opened: a rise after the start is a signal.
    var openingEvents = MemoryEventCounters()

    var isEmpty: Bool { triggers.isEmpty && eventsFD < 0 }

    var description: String {
        let parts = [pressurePath, eventsPath].compactMap { $0 }
        return parts.isEmpty ? "none" : parts.joined(separator: " ")
    }

    /// Triggers on the cgroup's `memory.pressure` if it takes them, else on the system file;
    /// and the cgroup's `memory.events` when there is one.
    static func open(files: MemoryPressureFiles, some: Duration, full: Duration) -> PressureWatch {
        var watch = PressureWatch()
        for path in [files.cgroupPressurePath, files.systemPressurePath].compactMap({ $0 }) {
            guard let someFD = trigger(path, kind: "some", threshold: some) else { continue }
            watch.triggers.append((someFD, .some))
            if let fullFD = trigger(path, kind: "full", threshold: full) { watch.triggers.append((fullFD, .full)) }
            watch.pressurePath = path
            break
        }
        if let events = files.cgroupEventsPath {
            let fd = Foundation.open(events, O_RDONLY | O_CLOEXEC)
            if fd >= 0 {
                watch.eventsFD = fd
                watch.eventsPath = events
                watch.openingEvents = watch.readEvents() ?? MemoryEventCounters()
            }
        }
        return watch
    }

    /// A descriptor of `path` with a `kind` trigger written to it, or nil when it takes none.
    private static func trigger(_ path: String, kind: String, threshold: Duration) -> Int32? {
        let fd = Foundation.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        let microseconds = { (duration: Duration) in
            duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        }
        // The terminating NUL is part of the write: /proc's parser drops the last byte.
        let text = "\(kind) \(microseconds(threshold)) \(microseconds(PSIMemoryPressureSource.window))\0"
        let written = text.utf8CString.withUnsafeBufferPointer { buffer in
            write(fd, buffer.baseAddress, buffer.count - 1)
        }
        guard written == text.utf8.count else {
            Foundation.close(fd)
            return nil
        }
        return fd
    }

    /// `memory.events` read again from its start (which also clears a poll's wake-up), or nil.
    func readEvents() -> MemoryEventCounters? {
        guard eventsFD >= 0, lseek(eventsFD, 0, SEEK_SET) == 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(eventsFD, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return MemoryEventCounters(parsing: String(decoding: buffer[..<count], as: UTF8.self))
    }

    func close() {
        for trigger in triggers { Foundation.close(trigger.fd) }
        if eventsFD >= 0 { Foundation.close(eventsFD) }
    }
}
