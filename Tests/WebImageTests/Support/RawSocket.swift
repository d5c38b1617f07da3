import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to a loopback port, for tests that speak HTTP byte by byte: a request
/// left unfinished, a connection that sends nothing, a flood of connections. Its blocking reads
/// run off the cooperative pool and give up after ``readLimit`` seconds, so a test never hangs.
final class RawSocket: Sendable {
    /// Seconds a read waits before it gives up.
    static let readLimit = 30

    let fd: Int32

    /// Connects to 127.0.0.1:`port`.
    init(port: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawSocketError.io("socket", errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            let code = errno
            close(fd)
            throw RawSocketError.io("connect", code)
        }
        var limit = timeval(tv_sec: Self.readLimit, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        self.fd = fd
    }

    deinit { close(fd) }

    /// Writes all of `text`.
    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw RawSocketError.io("send", errno) }
            sent += count
        }
    }

    /// How a wait for the end of the connection ended.
    struct Ending: Sendable {
        /// Everything received before it.
        let received: [UInt8]
        /// The server closed the connection (false: the read gave up or failed otherwise).
        let closed: Bool
        /// Seconds from the call until then.
        let elapsed: Double

        var text: String { String(decoding: received, as: UTF8.self) }
    }

    /// Reads until the server closes the connection (or ``readLimit`` passes).
    func waitForClose() async -> Ending {
        await offThePool { [fd] in
            let start = ContinuousClock.now
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count > 0 {
                    received += buffer[0..<count]
                    continue
                }
                if count < 0 && errno == EINTR { continue }
                // 0: an orderly close; ECONNRESET: a close with unread data.
                let closed = count == 0 || errno == ECONNRESET
                let elapsed = ContinuousClock.now - start
                return Ending(received: received, closed: closed,
                              elapsed: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            }
        }
    }

    /// Reads one whole response (its head and a `Content-Length` body); its status and head.
    func readResponse() async throws -> (status: Int, head: String) {
        let outcome: Result<(Int, String), RawSocketError> = await offThePool { [fd] in
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let text = String(decoding: received, as: UTF8.self)
                if let end = text.range(of: "\r\n\r\n") {
                    let head = String(text[..<end.lowerBound])
                    let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                    if received.count >= text.utf8.distance(from: text.startIndex, to: end.upperBound) + length {
                        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
                        return .success((status, head))
                    }
                }
                let count = read(fd, &buffer, buffer.count)
                if count > 0 {
                    received += buffer[0..<count]
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    return .failure(.io("read a response (got \(received.count) bytes)", count == 0 ? 0 : errno))
                }
            }
        }
        return try outcome.get()
    }
}

enum RawSocketError: Error, CustomStringConvertible {
    case io(String, Int32)

    var description: String {
        switch self {
        case .io(let call, let code): "\(call) failed: \(code == 0 ? "closed" : String(cString: strerror(code)))"
        }
    }
}
