import Foundation

/// Where this process's memory-pressure signals can be read on Linux: its cgroup v2 directory
/// (from the `0::` line of `/proc/self/cgroup`, under the cgroup2 mount found in
/// `/proc/self/mountinfo`, `/sys/fs/cgroup` when that cannot be read), whose `memory.pressure`
/// takes PSI triggers and whose `memory.events` counts limit events, and the system-wide
/// `/proc/pressure/memory`. The paths are injectable so tests can point at a fake tree.
public struct MemoryPressureFiles: Sendable, Hashable {
    /// The system-wide PSI file (`/proc/pressure/memory`).
    public var systemPressurePath: String
    /// The file listing the process's cgroups (`/proc/self/cgroup`).
    public var cgroupListPath: String
    /// The process's mount table (`/proc/self/mountinfo`), where the cgroup2 mount is found.
    public var mountInfoPath: String
    /// Where cgroup v2 is mounted when the mount table names no cgroup2 mount.
    public var defaultCgroupMountPath: String

    /// The files of this process; the defaults are the real ones.
    public init(systemPressurePath: String = "/proc/pressure/memory",
                cgroupListPath: String = "/proc/self/cgroup",
                mountInfoPath: String = "/proc/self/mountinfo",
                defaultCgroupMountPath: String = "/sys/fs/cgroup") {
        self.systemPressurePath = systemPressurePath
        self.cgroupListPath = cgroupListPath
        self.mountInfoPath = mountInfoPath
        self.defaultCgroupMountPath = defaultCgroupMountPath
    }

    /// The process's cgroup v2 directory, or nil without a `0::` line.
    public var cgroupDirectory: String? {
        guard let list = PressureFileText.read(cgroupListPath),
              let line = list.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("0::") }) else {
            return nil
        }
        let path = line.dropFirst(3).trimmingCharacters(in: .whitespaces)
        let (mountPoint, mountRoot) = cgroup2Mount ?? (defaultCgroupMountPath, "/")
        // Inside the mount, the process's path is relative to the mount's root.
        var relative = Substring(path)
        if mountRoot != "/", relative.hasPrefix(mountRoot) { relative = relative.dropFirst(mountRoot.count) }
        let components = relative.split(separator: "/").filter { $0 != "." && $0 != ".." }
        return ([Substring(mountPoint)] + components).joined(separator: "/")
    }

    /// The cgroup v2 `memory.pressure` of the process's cgroup, when it exists.
    public var cgroupPressurePath: String? { existingCgroupFile("memory.pressure") }

    /// The cgroup v2 `memory.events` of the process's cgroup, when it exists (never at the root).
    public var cgroupEventsPath: String? { existingCgroupFile("memory.events") }

    private func existingCgroupFile(_ name: String) -> String? {
        guard let directory = cgroupDirectory else { return nil }
        let path = directory + "/" + name
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// The mount point and root of the first cgroup2 mount in the mount table.
    var cgroup2Mount: (point: String, root: String)? {
        guard let table = PressureFileText.read(mountInfoPath, limit: 1 << 20) else { return nil }
        for line in table.split(whereSeparator: \.isNewline) {
            // ID PARENT MAJ:MIN ROOT MOUNT-POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER-OPTIONS
            let fields = line.split(separator: " ")
            guard let dash = fields.firstIndex(of: "-"), dash + 1 < fields.count, fields[dash + 1] == "cgroup2",
                  fields.count > 4 else { continue }
            return (Self.unescape(fields[4]), Self.unescape(fields[3]))
        }
        return nil
    }

    /// Undoes the mount table's octal escapes (`\040` for a space).
    static func unescape(_ field: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(field.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "\\"), utf8.count >= 3,
               let value = UInt8(String(decoding: utf8.prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(value)
                utf8 = utf8.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Reading the small files under `/proc` and `/sys/fs/cgroup`.
enum PressureFileText {
    /// The UTF-8 text of a file (at most `limit` bytes are read), or nil when it cannot be read.
    static func read(_ path: String, limit: Int = 64 * 1024) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: limit) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
