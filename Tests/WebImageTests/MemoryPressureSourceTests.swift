import Foundation
import Testing
@testable import WebImageLoading

/// The Linux source: which files it watches (on a fake cgroup tree, and on this machine's real
/// one where it has PSI), how it reads `memory.events`, and that its thread delivers signals and
/// stops.
@Suite("Memory pressure: the Linux source")
struct MemoryPressureSourceTests {
    /// A fake `/proc/self/cgroup`, mount table and cgroup2 directory `app` under a temporary root.
    private struct FakeTree {
        let root: URL
        let files: MemoryPressureFiles
        var cgroup: URL { root.appendingPathComponent("unified/app") }
        var events: URL { cgroup.appendingPathComponent("memory.events") }

        init(events: Bool = true, pressure: Bool = true) throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("pressure-tree-\(UUID())")
            let cgroup = root.appendingPathComponent("unified/app")
            try FileManager.default.createDirectory(at: cgroup, withIntermediateDirectories: true)
            try "1:memory:/elsewhere\n0::/app\n".write(to: root.appendingPathComponent("cgroup"), atomically: true, encoding: .utf8)
            let mountInfo = "22 1 0:20 / /proc rw - proc proc rw\n"
                + "30 25 0:26 / \(root.path)/unified rw,relatime shared:5 - cgroup2 cgroup2 rw\n"
            try mountInfo.write(to: root.appendingPathComponent("mountinfo"), atomically: true, encoding: .utf8)
            if pressure { try Data().write(to: cgroup.appendingPathComponent("memory.pressure")) }
            if events {
                try Self.eventsText().write(to: cgroup.appendingPathComponent("memory.events"), atomically: true, encoding: .utf8)
            }
            files = MemoryPressureFiles(systemPressurePath: root.appendingPathComponent("no-psi").path,
                                        cgroupListPath: root.appendingPathComponent("cgroup").path,
                                        mountInfoPath: root.appendingPathComponent("mountinfo").path,
                                        defaultCgroupMountPath: root.appendingPathComponent("elsewhere").path)
        }

        static func eventsText(high: Int = 0, max: Int = 0, oom: Int = 0, oomKill: Int = 0) -> String {
            "low 0\nhigh \(high)\nmax \(max)\noom \(oom)\noom_kill \(oomKill)\n"
        }

        /// Rewrites `memory.events` in place (the source keeps it open), as the kernel does.
        func setEvents(high: Int = 0, max: Int = 0, oom: Int = 0, oomKill: Int = 0) throws {
            let handle = try FileHandle(forWritingTo: events)
            defer { try? handle.close() }
            try handle.write(contentsOf: Data(Self.eventsText(high: high, max: max, oom: oom, oomKill: oomKill).utf8))
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    @Test func theCgroupIsFoundUnderTheCgroup2MountOfTheMountTable() throws {
        let tree = try FakeTree()
        defer { tree.remove() }
        #expect(tree.files.cgroupDirectory == tree.cgroup.path)
        #expect(tree.files.cgroupPressurePath == tree.cgroup.appendingPathComponent("memory.pressure").path)
        #expect(tree.files.cgroupEventsPath == tree.events.path)
    }

    @Test func withoutAV2LineThereIsNoCgroup() throws {
        let tree = try FakeTree()
        defer { tree.remove() }
        try "4:memory:/app\n".write(toFile: tree.files.cgroupListPath, atomically: true, encoding: .utf8)
        #expect(tree.files.cgroupDirectory == nil)
        #expect(tree.files.cgroupPressurePath == nil)
    }

    @Test func mountTableEscapesAreUndone() {
        #expect(MemoryPressureFiles.unescape(#"/sys/fs/my\040cgroup"#) == "/sys/fs/my cgroup")
        #expect(MemoryPressureFiles.unescape(#"/a\9"#) == #"/a\9"#)
    }

    @Test func eventCountersThatRoseAreEvents() {
        let before = MemoryEventCounters(parsing: "low 3\nhigh 1\nmax 2\noom 0\noom_kill 0\n")
        #expect(before.high == 1 && before.max == 2)
        #expect(MemoryEventCounters(parsing: "high 1\nmax 2\n").events(since: before) == [])
        #expect(MemoryEventCounters(parsing: "high 5\nmax 3\noom 0\noom_kill 1\n").events(since: before) == [.high, .max, .oom])
        #expect(MemoryEventCounters(parsing: "garbage\nhigh x\n") == MemoryEventCounters())
    }

    @Test func aRisingEventCounterIsASignalAndQuietEasesIt() async throws {
        let tree = try FakeTree()
        defer { tree.remove() }
        let source = PSIMemoryPressureSource(quietPeriod: .milliseconds(50), pollInterval: .milliseconds(10),
                                             files: tree.files)
        let signals = Watched<[MemoryPressureSignal]>([])
        source.start { signal in signals.update { $0.append(signal) } }
        #expect(source.watching == "\(tree.cgroup.path)/memory.pressure \(tree.events.path)")
        let trigger = try String(contentsOf: tree.cgroup.appendingPathComponent("memory.pressure"), encoding: .utf8)
        #expect(trigger.hasSuffix(" 2000000\0"), "a trigger is written with a 2 s window and a NUL: \(trigger.debugDescription)")
        try tree.setEvents(high: 1)
        await signals.wait("the high event, then easing") { $0 == [.limit(.high), .eased] }
        try tree.setEvents(high: 1, max: 1, oomKill: 1)
        await signals.wait("the max and oom events") { $0.count >= 4 }
        #expect(Array(signals.value.dropFirst(2).prefix(2)) == [.limit(.max), .limit(.oom)])
        source.stop()
        source.stop()
    }

    @Test func withNothingToWatchStartingDoesNothing() throws {
        let tree = try FakeTree(events: false, pressure: false)
        defer { tree.remove() }
        let source = PSIMemoryPressureSource(files: tree.files)
        source.start { _ in Issue.record("a source without files signalled") }
        #expect(source.watching == "none")
        source.stop()
    }

    /// This machine's own files, where the kernel has PSI and takes a trigger from this process
    /// (kernels before 5.2 have PSI without triggers; some sandboxes hide /proc/pressure).
    @Test(.enabled(if: MemoryPressureSourceTests.systemTakesTriggers,
                   "needs /proc/pressure/memory accepting a PSI trigger"))
    func theRealSourceWatchesThisProcessesPressureAndStops() async throws {
        let files = MemoryPressureFiles()
        let source = PSIMemoryPressureSource()
        let monitor = MemoryPressureMonitor(source: source)
        let observation = monitor.observe { _ in }
        let watching = source.watching
        if let cgroupPressure = files.cgroupPressurePath, Self.takesTrigger(cgroupPressure) {
            #expect(watching.hasPrefix(cgroupPressure), "the cgroup's own file comes first: \(watching)")
        } else {
            #expect(watching.hasPrefix("/proc/pressure/memory"))
        }
        if let events = files.cgroupEventsPath { #expect(watching.hasSuffix(events)) }
        #expect(monitor.status.level == .none)
        observation.cancel()
    }

    static var systemTakesTriggers: Bool { takesTrigger("/proc/pressure/memory") }

    /// Whether `path` accepts a `some` trigger with the 2 s window from this process.
    static func takesTrigger(_ path: String) -> Bool {
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let text = Array("some 200000 2000000\0".utf8)
        return write(fd, text, text.count) == text.count
    }
}
