/// Cache key -> file name: whatever the key (any bytes, decoded as UTF-8), the name must be
/// 32 lowercase hex digits (the MD5 of the key, equal to the legacy name), optionally followed by
/// `.` and 1 to 222 ASCII letters or digits — so it can never hold a `/`, be `.` or `..`, or pass
/// NAME_MAX; and the name is a function of the key.
@_cdecl("LLVMFuzzerTestOneInput") // main.swift also hands it to the driver (through a closure)
public func fuzzFileName(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let key = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let name = DiskCacheFileName.name(forKey: key)
    let legacy = DiskCacheFileName.legacyName(forKey: key)
    let utf8 = Array(name.utf8)

    check(legacy.utf8.count == 32 && legacy.utf8.allSatisfy(isLowerHex), "legacy name \(legacy)", key)
    check(name.hasPrefix(legacy), "name \(name) does not start with the legacy name \(legacy)", key)
    check(utf8.count <= 255, "name of \(utf8.count) bytes passes NAME_MAX", key)
    check(!utf8.contains(UInt8(ascii: "/")) && !utf8.contains(0), "name \(name) holds a / or NUL", key)
    if utf8.count > 32 {
        let ext = utf8[33...]
        check(utf8[32] == UInt8(ascii: "."), "character 33 of \(name) is not a dot", key)
        check((1...DiskCacheFileName.maxExtensionLength).contains(ext.count), "extension length \(ext.count)", key)
        check(ext.allSatisfy(isAlphanumeric), "extension of \(name) is not [A-Za-z0-9]+", key)
    }
    // The name is a function of the key.
    check(DiskCacheFileName.name(forKey: key) == name, "two names for one key", key)
    return 0
}

private func isLowerHex(_ c: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(c)
}

private func isAlphanumeric(_ c: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c)
        || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c)
}

private func check(_ condition: Bool, _ message: @autoclosure () -> String, _ key: String) {
    if !condition { fatalError("fuzz invariant broken: \(message()) (key: \(key.debugDescription))") }
}
