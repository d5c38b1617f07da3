import Foundation

/// Where the shared cache's Redis is and how to talk to it: address, credentials, database,
/// timeouts and pool size. Parse one from `redis://[user:password@]host:port/db` with
/// ``init(url:)``; every other setting has a default fit for a cache (fail fast, never wait long).
public struct RedisConfiguration: Sendable, Hashable {
    /// Host name or address of the Redis server.
    public var host: String
    /// TCP port (Redis's default is 6379).
    public var port: Int
    /// ACL user name for `AUTH user password`; nil sends `AUTH password` (the `default` user).
    public var user: String?
    /// Password for `AUTH`; nil sends no `AUTH`.
    public var password: String?
    /// Database index selected after connecting (`SELECT n`).
    public var database: Int
    /// How long a connection attempt may take, in milliseconds (default 50: loopback or one LAN hop).
    public var connectTimeoutMilliseconds: Int = 50
    /// How long one command may wait for its reply, in milliseconds (default 50). A slower Redis
    /// is treated as down: the operation is a miss and counts towards opening the breaker.
    public var operationTimeoutMilliseconds: Int = 50
    /// Connections (each with its own thread for blocking calls); a key always uses the same one,
    /// so writes to one key keep their order.
    public var connections: Int = 4
    /// Prefix of every key this client writes, so several applications can share one Redis.
    public var keyPrefix: String = "webimage"

    /// A configuration for `host:port` with no credentials, database 0.
    public init(host: String = "127.0.0.1", port: Int = 6379, user: String? = nil,
                password: String? = nil, database: Int = 0) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
    }

    /// Parses `redis://[user:password@]host[:port][/db]` (`user` may be empty: `redis://:pw@host`).
    /// Percent-escapes in the user and password are decoded.
    /// - Throws: ``RedisConfigurationError`` naming what is wrong (scheme, host, port, database,
    ///   `rediss://`, which this hiredis build cannot do).
    public init(url: String) throws(RedisConfigurationError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw .malformed(url)
        }
        if scheme == "rediss" { throw .tlsUnsupported }
        guard scheme == "redis" else { throw .scheme(scheme) }
        guard let host = components.host, !host.isEmpty else { throw .missingHost(url) }
        let port = components.port ?? 6379
        guard (1...65535).contains(port) else { throw .port(String(port)) }
        var database = 0
        let path = components.path.split(separator: "/", omittingEmptySubsequences: true)
        if path.count > 1 { throw .database(components.path) }
        if let first = path.first {
            guard let index = Int(first), index >= 0 else { throw .database(String(first)) }
            database = index
        }
        if components.query != nil || components.fragment != nil { throw .malformed(url) }
        let user = components.percentEncodedUser.flatMap { $0.removingPercentEncoding }
        let password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        self.init(host: host, port: port, user: user?.isEmpty == true ? nil : user,
                  password: password, database: database)
    }

    /// The address without credentials, for logs and `/health`.
    public var redactedDescription: String {
        "redis://\(host):\(port)/\(database)"
    }
}

/// Why a shared-cache URL cannot be used.
public enum RedisConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    case malformed(String)
    case scheme(String)
    case missingHost(String)
    case port(String)
    case database(String)
    case tlsUnsupported

    public var description: String {
        switch self {
        case .malformed(let url):
            "'\(url)' is not a Redis URL; expected redis://[user:password@]host:port/db."
        case .scheme(let scheme):
            "Unsupported scheme '\(scheme):'; expected redis://[user:password@]host:port/db."
        case .missingHost(let url):
            "'\(url)' names no host; expected redis://[user:password@]host:port/db."
        case .port(let port):
            "Port \(port) is out of range (1–65535)."
        case .database(let database):
            "'\(database)' is not a database index; expected a number such as /0."
        case .tlsUnsupported:
            "rediss:// (TLS) is not supported: Debian's hiredis 0.14 has no hiredis_ssl. Use a TLS tunnel (stunnel, spiped) to a local port and redis:// to it."
        }
    }
}
