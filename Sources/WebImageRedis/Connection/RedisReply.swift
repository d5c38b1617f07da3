import Foundation

/// One Redis reply, copied out of hiredis's reply object.
public enum RedisReply: Sendable, Equatable {
    /// A bulk string (a value).
    case data(Data)
    /// A status line such as `OK` or `PONG`.
    case status(String)
    case integer(Int64)
    /// No value (a missing key, a `SET NX` that lost).
    case null
    case array([RedisReply])
    /// An error reply (`-ERR …`, `-OOM …`, `-NOAUTH …`).
    case error(String)

    /// The bytes of a bulk string, nil for anything else.
    public var data: Data? {
        if case .data(let data) = self { return data }
        return nil
    }
}

/// Why a Redis operation gave no answer: the connection failed, timed out, or Redis refused.
public struct RedisError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public enum Kind: Sendable, Hashable {
        /// Could not connect (refused, unreachable, timed out while connecting, AUTH/SELECT failed).
        case connect
        /// The connection broke or a reply did not arrive within the operation timeout.
        case io
        /// Redis answered with an error reply.
        case reply
        /// The breaker is open: Redis was not asked.
        case unavailable
        /// The operation waited past its deadline before a connection was free (this process's
        /// own queue was too long: not a sign that Redis is down).
        case deadline
        /// A blocking call was made on the thread of the connection it needs (from a `done`
        /// callback): refused at once, since that wait could never end.
        case reentrant
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "Redis \(kind): \(message)" }
}
