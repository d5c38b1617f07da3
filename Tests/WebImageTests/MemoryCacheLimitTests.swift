import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("MemoryCache default limit from cgroups")
struct MemoryCacheLimitTests {
    /// A fake `/proc/self/cgroup` plus cgroup mount in a fresh temporary directory.
    struct FakeCgroupTree {
        let root: URL
        var listPath: String { root.appendingPathComponent("proc-self-cgroup").path }
        var mountPath: String { root.appendingPathComponent("cgroup").path }

        init() throws {
            root = FileManager.default.temporaryDirectory
                .appendingPathComponent("webimage-cgroup-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: mountPath, withIntermediateDirectories: true)
        }

        func writeList(_ text: String) throws {
            try text.write(toFile: listPath, atomically: true, encoding: .utf8)
        }

        func writeMax(_ text: String, in cgroup: String = "") throws {
            let directory = mountPath + cgroup
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try text.write(toFile: directory + "/memory.max", atomically: true, encoding: .utf8)
        }

        func reader(ram: UInt64 = 16 << 30) -> ProcessMemoryLimit {
            ProcessMemoryLimit(cgroupListPath: listPath, cgroupMountPath: mountPath, physicalMemory: ram)
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    @Test func numericLimitInOwnCgroup() throws {
        let tree = try FakeCgroupTree()
        defer { tree.remove() }
        try tree.writeList("0::/app.slice/web.scope\n")
        try tree.writeMax("536870912\n", in: "/app.slice/web.scope")
        #expect(tree.reader().cgroupLimit == 512 << 20)
        #expect(tree.reader().availableBytes == 512 << 20)
        #expect(tree.reader(ram: 100 << 20).availableBytes == 100 << 20)   // RAM lower: RAM
    }

    @Test func tightestAncestorWins() throws {
        let tree = try FakeCgroupTree()
        defer { tree.remove() }
        try tree.writeList("0::/a/b\n")
        try tree.writeMax("max", in: "/a/b")
        try tree.writeMax("2147483648", in: "/a")
        try tree.writeMax("4294967296")
        #expect(tree.reader().cgroupLimit == 2 << 30)
    }

    @Test func namespacedContainerReadsTheMountRoot() throws {
        let tree = try FakeCgroupTree()
        defer { tree.remove() }
        try tree.writeList("0::/\n")
        try tree.writeMax("1073741824\n")
        #expect(tree.reader().availableBytes == 1 << 30)
    }

    @Test func maxMeansNoLimit() throws {
        let tree = try FakeCgroupTree()
        defer { tree.remove() }
        try tree.writeList("0::/svc\n")
        try tree.writeMax("max\n", in: "/svc")
        #expect(tree.reader().cgroupLimit == nil)
        #expect(tree.reader(ram: 8 << 30).availableBytes == 8 << 30)
    }

    @Test func missingFilesMeanRAM() throws {
        let tree = try FakeCgroupTree()
        defer { tree.remove() }
        #expect(tree.reader(ram: 3 << 30).availableBytes == 3 << 30)       // no cgroup list
        try tree.writeList("0::/gone\n")
        #expect(tree.reader(ram: 3 << 30).availableBytes == 3 << 30)       // no memory.max
    }

    @Test func cgroupV1OnlyMeansRAM() throws {
        let tree = try FakeCgroupTree()
        defer { tree.remove() }
        try tree.writeList("12:memory:/docker/abc\n11:cpu,cpuacct:/docker/abc\n")
        try tree.writeMax("1048576")
        #expect(tree.reader().cgroupLimit == nil)
        #expect(tree.reader(ram: 5 << 30).availableBytes == 5 << 30)
    }

    @Test func garbageAndZeroAreIgnored() throws {
        let tree = try FakeCgroupTree()
        defer { tree.remove() }
        try tree.writeList("0::/x\n")
        try tree.writeMax("lots", in: "/x")
        #expect(tree.reader().cgroupLimit == nil)
        try tree.writeMax("0", in: "/x")
        #expect(tree.reader().cgroupLimit == nil)
    }

    @Test func defaultCostLimitRule() {
        #expect(MemoryCache.defaultCostLimit(availableMemory: 16 << 30) == 1 << 30)   // capped
        #expect(MemoryCache.defaultCostLimit(availableMemory: 512 << 20) == 128 << 20)
        #expect(MemoryCache.defaultCostLimit(availableMemory: 0) == 1)
        #expect(MemoryCache.defaultCostLimit > 0 && MemoryCache.defaultCostLimit <= 1 << 30)
        #expect(MemoryCache().costLimit == MemoryCache.defaultCostLimit)
        #expect(MemoryCache().countLimit == 0)
    }
}
