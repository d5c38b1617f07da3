import WebImageCodecs
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP socket bound to 127.0.0.1 on a port the kernel picks, already listening: bound
/// synchronously so that a downloader knows its relay's port before it builds its HTTP client,
/// without waiting on an event loop.
struct LoopbackListener {
    let descriptor: CInt
    let port: Int

    /// Set by tests to make ``open()`` fail with this reason, as a full file-descriptor table would.
    @TaskLocal static var simulatedFailure: String?

    /// Binds and listens; throws a ``WebImageError`` naming the failed step.
    static func open() throws -> LoopbackListener {
        if let simulatedFailure {
            throw WebImageError(.invalidDownloadOperation,
                                "The safe-fetch guard's relay could not listen on 127.0.0.1 (\(simulatedFailure)).")
        }
        #if canImport(Darwin)
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw failure("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0, listen(descriptor, 256) == 0 else {
            let error = failure(bound == 0 ? "listen" : "bind")
            close(descriptor)
            throw error
        }
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            let error = failure("getsockname")
            close(descriptor)
            throw error
        }
        return LoopbackListener(descriptor: descriptor, port: Int(UInt16(bigEndian: address.sin_port)))
    }

    private static func failure(_ step: String) -> WebImageError {
        WebImageError(.invalidDownloadOperation,
            "The safe-fetch guard's relay could not listen on 127.0.0.1 (\(step): \(String(cString: strerror(errno)))).")
    }
}
