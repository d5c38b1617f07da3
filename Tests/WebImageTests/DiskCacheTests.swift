import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("DiskCache basics")
struct DiskCacheTests {
    @Test func storeContainsReadRemove() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache()
        let key = "https://example.com/photo.jpg"
        #expect(cache.totalSize == 0 && cache.totalCount == 0)
        #expect(!cache.containsData(forKey: key))
        #expect(cache.data(forKey: key) == nil)

        let bytes = diskCacheBytes(1000)
        try cache.setData(bytes, forKey: key)
        #expect(cache.containsData(forKey: key))
        #expect(cache.data(forKey: key) == bytes)
        #expect(FileManager.default.contents(atPath: cache.cachePath(forKey: key)) == bytes)
        #expect(cache.totalCount == 1 && cache.totalSize == 1000)

        let replacement = diskCacheBytes(10, seed: 9)
        try cache.setData(replacement, forKey: key)
        #expect(cache.data(forKey: key) == replacement)
        #expect(cache.totalCount == 1 && cache.totalSize == 10)

        cache.removeData(forKey: key)
        #expect(!cache.containsData(forKey: key))
        #expect(cache.data(forKey: key) == nil)
        #expect(cache.totalCount == 0 && cache.totalSize == 0)
        cache.removeData(forKey: key)  // removing a missing key is fine
    }

    @Test func emptyDataIsAnEntry() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache()
        try cache.setData(Data(), forKey: "empty")
        #expect(cache.data(forKey: "empty") == Data())
        #expect(cache.totalCount == 1 && cache.totalSize == 0)
    }

    @Test func removeAllLeavesUsableEmptyDirectory() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache()
        for i in 0..<5 { try cache.setData(diskCacheBytes(100 + i), forKey: "key-\(i).png") }
        try cache.setExtendedData(Data("meta".utf8), forKey: "key-0.png")
        #expect(cache.totalCount == 5 && cache.totalSize == 510)
        cache.removeAll()
        #expect(cache.totalCount == 0 && cache.totalSize == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.directoryPath).isEmpty)
        try cache.setData(diskCacheBytes(7), forKey: "after")
        #expect(cache.data(forKey: "after") == diskCacheBytes(7))
    }

    @Test func countsSurviveRestart() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let first = sandbox.cache()
        try first.setData(diskCacheBytes(20), forKey: "a")
        try first.setData(diskCacheBytes(30), forKey: "b.gif")
        let second = sandbox.cache()
        #expect(second.totalCount == 2 && second.totalSize == 50)
        #expect(second.data(forKey: "b.gif") == diskCacheBytes(30))
    }

    @Test func layoutAndDefaults() {
        let config = DiskCacheConfig()
        #expect(config.namespace == "default")
        #expect(config.maxDiskAge == 604_800)
        #expect(config.expireType == .accessDate)
        #expect(config.maxDiskSize == 512 * 1024 * 1024)
        #expect(config.trimRatio == 0.5)
        #expect(config.directory.lastPathComponent == "webimage")
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache { $0.namespace = "thumbs" }
        #expect(cache.directoryPath == sandbox.root.appendingPathComponent("thumbs").path)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: cache.directoryPath, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    @Test func legacyNameWithoutExtensionIsRead() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache()
        let key = "https://example.com/old.png"
        let legacy = cache.directoryPath + "/" + DiskCacheFileName.legacyName(forKey: key)
        #expect(FileManager.default.createFile(atPath: legacy, contents: diskCacheBytes(12)))
        #expect(cache.containsData(forKey: key))
        #expect(cache.data(forKey: key) == diskCacheBytes(12))
        cache.removeData(forKey: key)
        #expect(!FileManager.default.fileExists(atPath: legacy))
    }
}

@Suite("DiskCache file names")
struct DiskCacheFileNameTests {
    func ext(_ key: String) -> String { (DiskCacheFileName.name(forKey: key) as NSString).pathExtension }

    @Test func md5Name() {
        // MD5("hello") is well known.
        #expect(DiskCacheFileName.legacyName(forKey: "hello") == "5d41402abc4b2a76b9719d911017c592")
        #expect(DiskCacheFileName.name(forKey: "hello.png") == DiskCacheFileName.legacyName(forKey: "hello.png") + ".png")
    }

    @Test func extensionRules() {
        #expect(ext("https://example.com/image.jpg") == "jpg")
        #expect(ext("https://example.com/x.jpg?aid=1&v=2.3&" + String(repeating: "q=long.value&", count: 40)) == "jpg")
        let staticMap = "https://maps.googleapis.com/maps/api/staticmap?center=48.8566,2.3522&format=png&maptype=roadmap&scale=2&size=375x200&zoom=15"
        #expect(ext(staticMap) == "")
        #expect(DiskCacheFileName.name(forKey: staticMap) == DiskCacheFileName.legacyName(forKey: staticMap))
        #expect(ext("https://example.com/x.jpg00%00") == "jpg00")
        #expect(ext("https://example.com/x." + String(repeating: "a", count: 223)) == "")
        #expect(ext("https://example.com/x." + String(repeating: "a", count: 222)) == String(repeating: "a", count: 222))
        #expect(ext("plain-name.webp") == "webp")
        #expect(ext("no extension at all") == "")
    }

    @Test(arguments: [
        "/", "..", "../../etc/passwd", "a/../../b", "x.\0png", "a\nb.pn\ng", "evil.p/ng", "x.%2F..%2Fetc",
        "\0", "line\nbreak", "x.jp:g", "x.é€", String(repeating: "k", count: 10_240) + ".png",
    ])
    func hostileKeysStayInsideTheDirectory(key: String) throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache()
        let path = cache.cachePath(forKey: key)
        let name = String(path.dropFirst(cache.directoryPath.count + 1))
        #expect(path.hasPrefix(cache.directoryPath + "/"))
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 1 || parts.count == 2)
        #expect(parts[0].count == 32 && parts[0].allSatisfy { $0.isHexDigit && !$0.isUppercase })
        if parts.count == 2 {
            #expect(!parts[1].isEmpty && parts[1].unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) })
        }
    }

    @Test func hostileKeysRoundTrip() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache()
        let keys = ["/", "..", "../escape.png", "a\nb", "\0.gif", String(repeating: "k", count: 10_240)]
        for (i, key) in keys.enumerated() { try cache.setData(diskCacheBytes(10, seed: UInt8(i)), forKey: key) }
        for (i, key) in keys.enumerated() { #expect(cache.data(forKey: key) == diskCacheBytes(10, seed: UInt8(i))) }
        #expect(cache.entryFileNames.count == keys.count)
        let parentEntries = try FileManager.default.contentsOfDirectory(atPath: sandbox.root.path)
        #expect(parentEntries == ["default"])
    }
}
