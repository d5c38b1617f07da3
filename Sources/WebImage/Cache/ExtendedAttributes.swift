import Foundation
import Glibc

/// Linux extended attributes on a path, without following symlinks.
///
/// Swift's Glibc module leaves out <sys/xattr.h>, so the libc functions are looked up by name;
/// where one is missing, calls fail with ENOTSUP and the cache falls back to sidecar files.
enum ExtendedAttributes {
    /// The largest value read back; Linux refuses larger ones anyway (XATTR_SIZE_MAX).
    static let maxValueSize = 64 * 1024

    /// The value of attribute `name` on `path`, or the errno (ENODATA: absent; ENOTSUP: unsupported).
    static func value(named name: String, atPath path: String) -> Result<Data, DiskCacheFileSystem.Failure> {
        for _ in 0..<3 {
            guard let lgetxattr = Functions.get else { return .failure(.init(ENOTSUP)) }
            let size = lgetxattr(path, name, nil, 0)
            guard size >= 0 else { return .failure(.init()) }
            guard size <= maxValueSize else { return .failure(.init(E2BIG)) }
            var data = Data(count: size)
            let got = data.withUnsafeMutableBytes { lgetxattr(path, name, $0.baseAddress, size) }
            if got >= 0 { return .success(data.prefix(got)) }
            if errno != ERANGE { return .failure(.init()) }
            // The value grew between the two calls: ask for its size again.
        }
        return .failure(.init(ERANGE))
    }

    /// Sets attribute `name` on `path` to `value`.
    static func setValue(_ value: Data, named name: String, atPath path: String) throws(DiskCacheFileSystem.Failure) {
        guard let lsetxattr = Functions.set else { throw .init(ENOTSUP) }
        let result = value.withUnsafeBytes { lsetxattr(path, name, $0.baseAddress, $0.count, 0) }
        guard result == 0 else { throw .init() }
    }

    /// Removes attribute `name` from `path`; an absent attribute or file is not an error.
    static func removeValue(named name: String, atPath path: String) {
        _ = Functions.remove?(path, name)
    }

    /// Whether `code` means the file system has no user extended attributes.
    static func isUnsupported(_ code: Int32) -> Bool {
        code == ENOTSUP || code == EOPNOTSUPP
    }

    /// `lgetxattr`, `lsetxattr` and `lremovexattr` from libc, if it has them.
    private enum Functions {
        typealias Get = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
        typealias Set = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
        typealias Remove = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>) -> Int32

        static let get = lookup("lgetxattr", as: Get.self)
        static let set = lookup("lsetxattr", as: Set.self)
        static let remove = lookup("lremovexattr", as: Remove.self)

        /// `dlsym(RTLD_DEFAULT, name)` (RTLD_DEFAULT is the null handle on glibc).
        private static func lookup<Function>(_ name: String, as type: Function.Type) -> Function? {
            guard let symbol = dlsym(nil, name) else { return nil }
            return unsafeBitCast(symbol, to: type)
        }
    }
}
