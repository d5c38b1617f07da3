import WebImageCodecs
import Foundation
import CXattr
import Glibc

/// Linux extended attributes on a path, without following symlinks.
///
/// A file system without user extended attributes answers ENOTSUP, and the cache then falls back to
/// sidecar files.
enum ExtendedAttributes {
    /// The largest value read back; Linux refuses larger ones anyway (XATTR_SIZE_MAX).
    static let maxValueSize = 64 * 1024

    /// The value of attribute `name` on `path`, or the errno (ENODATA: absent; ENOTSUP: unsupported).
    static func value(named name: String, atPath path: String) -> Result<Data, DiskCacheFileSystem.Failure> {
        for _ in 0..<3 {
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
        let result = value.withUnsafeBytes { lsetxattr(path, name, $0.baseAddress, $0.count, 0) }
        guard result == 0 else { throw .init() }
    }

    /// Removes attribute `name` from `path`; an absent attribute or file is not an error.
    static func removeValue(named name: String, atPath path: String) {
        _ = lremovexattr(path, name)
    }

    /// Whether `code` means the file system has no user extended attributes.
    static func isUnsupported(_ code: Int32) -> Bool {
        code == ENOTSUP || code == EOPNOTSUPP
    }
}
