import Foundation

/// How much memory this process may use: the lowest cgroup v2 `memory.max` on the way from its own
/// cgroup up to the mount root, or physical RAM when that is lower or no limit is set.
///
/// The process's cgroup comes from the `0::/path` line of `/proc/self/cgroup`; the limits are read
/// from `<mount>/<path>/memory.max` and each parent directory up to `<mount>/memory.max` (which is
/// where a container with its own cgroup namespace sees its limit). `max`, a missing file, a
/// v1-only hierarchy (no `0::` line), `0` or anything unparsable mean "no limit from cgroups".
/// The paths are injectable so tests can point the reader at a fake tree.
public struct ProcessMemoryLimit: Sendable {
    /// The file listing the process's cgroups (`/proc/self/cgroup`).
    public var cgroupListPath: String
    /// Where the cgroup v2 hierarchy is mounted (`/sys/fs/cgroup`).
    public var cgroupMountPath: String
    /// Installed RAM in bytes.
    public var physicalMemory: UInt64

    /// A reader over the given cgroup files; the defaults read this process's real limits.
    public init(cgroupListPath: String = "/proc/self/cgroup",
                cgroupMountPath: String = "/sys/fs/cgroup",
                physicalMemory: UInt64 = ProcessInfo.processInfo.physicalMemory) {
        self.cgroupListPath = cgroupListPath
        self.cgroupMountPath = cgroupMountPath
        self.physicalMemory = physicalMemory
    }

    /// The smaller of ``cgroupLimit`` and ``physicalMemory``.
    public var availableBytes: UInt64 {
        guard let limit = cgroupLimit else { return physicalMemory }
        return physicalMemory > 0 ? min(limit, physicalMemory) : limit
    }

    /// The tightest cgroup v2 memory limit on this process, or nil when there is none.
    public var cgroupLimit: UInt64? {
        guard let path = ownCgroupPath else { return nil }
        var components = path.split(separator: "/").filter { $0 != "." && $0 != ".." }
        var tightest: UInt64?
        while true {
            let directory = ([Substring(cgroupMountPath)] + components).joined(separator: "/")
            if let limit = Self.readLimit(atPath: directory + "/memory.max") {
                tightest = min(tightest ?? .max, limit)
            }
            if components.isEmpty { break }
            components.removeLast()
        }
        return tightest
    }

    /// The path of the `0::` (cgroup v2) line of the cgroup list, e.g. `/user.slice/app.scope`.
    var ownCgroupPath: String? {
        guard let text = Self.readSmallFile(atPath: cgroupListPath) else { return nil }
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("0::") {
            return String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// Parses a `memory.max` file: a byte count, or nil for `max`, `0`, garbage or no file.
    static func readLimit(atPath path: String) -> UInt64? {
        guard let text = readSmallFile(atPath: path) else { return nil }
        guard let value = UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines)), value > 0
        else { return nil }
        return value
    }

    /// The UTF-8 text of a small file (at most 64 KiB is read), or nil when it cannot be read.
    static func readSmallFile(atPath path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 64 * 1024) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
