import CHiredis
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One blocking hiredis connection. Not thread-safe: a ``RedisLane`` owns it and uses it from
/// its own serial queue only. After any transport error it is closed and must be replaced.
/// `@unchecked Sendable`: only ever used under its lane's `connection` lock.
final class RedisConnection: @unchecked Sendable {
    private var context: UnsafeMutablePointer<redisContext>?

    /// Connects, authenticates and selects the database, each within the configured timeouts.
    init(_ configuration: RedisConfiguration) throws(RedisError) {
        let connectTimeout = Self.timeval(milliseconds: configuration.connectTimeoutMilliseconds)
        guard let context = redisConnectWithTimeout(configuration.host, Int32(configuration.port), connectTimeout) else {
            throw RedisError(.connect, "cannot allocate a hiredis context")
        }
        self.context = context
        guard context.pointee.err == 0 else {
            let message = Self.errorString(context)
            close()
            throw RedisError(.connect, "\(configuration.host):\(configuration.port): \(message)")
        }
        redisSetTimeout(context, Self.timeval(milliseconds: configuration.operationTimeoutMilliseconds))
        redisEnableKeepAlive(context)
        do {
            if let password = configuration.password {
                let arguments = configuration.user.map { ["AUTH", $0, password] } ?? ["AUTH", password]
                try expectOK(arguments.map { Data($0.utf8) }, what: "AUTH")
            }
            if configuration.database != 0 {
                try expectOK([Data("SELECT".utf8), Data(String(configuration.database).utf8)], what: "SELECT")
            }
        } catch {
            close()
            throw RedisError(.connect, error.message)
        }
    }

    deinit { close() }

    /// Whether the connection can still be used (no transport error so far).
    var isOpen: Bool { context != nil }

    /// Sends one command and waits for its reply (at most the operation timeout).
    /// - Throws: ``RedisError/Kind/io`` when the connection broke or timed out (it is then closed).
    func command(_ arguments: [Data]) throws(RedisError) -> RedisReply {
        guard let context else { throw RedisError(.io, "connection closed") }
        let raw: UnsafeMutableRawPointer? = Self.withArgv(arguments) { argc, argv, lengths in
            redisCommandArgv(context, argc, argv, lengths)
        }
        guard let raw else {
            let message = Self.errorString(context)
            close()
            throw RedisError(.io, message)
        }
        defer { freeReplyObject(raw) }
        return Self.convert(raw.assumingMemoryBound(to: redisReply.self))
    }

    func close() {
        if let context { redisFree(context) }
        context = nil
    }

    private func expectOK(_ arguments: [Data], what: String) throws(RedisError) {
        switch try command(arguments) {
        case .status: return
        case .error(let message): throw RedisError(.reply, "\(what) refused: \(message)")
        default: throw RedisError(.reply, "\(what): unexpected reply")
        }
    }

    private static func convert(_ reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING:
            return .data(value.str.map { Data(bytes: $0, count: value.len) } ?? Data())
        case REDIS_REPLY_STATUS:
            return .status(value.str.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: value.len), as: UTF8.self) } ?? "")
        case REDIS_REPLY_ERROR:
            return .error(value.str.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: value.len), as: UTF8.self) } ?? "")
        case REDIS_REPLY_INTEGER:
            return .integer(Int64(value.integer))
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            for index in 0..<value.elements {
                if let element = value.element[index] { elements.append(convert(element)) }
            }
            return .array(elements)
        default:
            return .null
        }
    }

    private static func withArgv<T>(_ arguments: [Data],
                                    _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> T) -> T {
        // One buffer holds every argument; argv points into it (hiredis copies before returning).
        var joined = Data(capacity: arguments.reduce(0) { $0 + $1.count } + 1)
        var lengths: [Int] = []
        for argument in arguments {
            joined.append(argument)
            lengths.append(argument.count)
        }
        joined.append(0)
        return joined.withUnsafeBytes { raw in
            let base = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
            var argv: [UnsafePointer<CChar>?] = []
            var offset = 0
            for length in lengths {
                argv.append(base + offset)
                offset += length
            }
            return argv.withUnsafeMutableBufferPointer { argvBuffer in
                lengths.withUnsafeBufferPointer { lengthBuffer in
                    body(Int32(arguments.count), argvBuffer.baseAddress!, lengthBuffer.baseAddress!)
                }
            }
        }
    }

    private static func errorString(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { bytes in
            let text = bytes.prefix { $0 != 0 }
            return String(decoding: text, as: UTF8.self)
        }
    }

    private static func timeval(milliseconds: Int) -> Glibc.timeval {
        Glibc.timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
    }
}
