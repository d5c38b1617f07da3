import ArgumentParser
import WebImageServer

extension ServeCommand {
    /// Checks `--read-timeout`, `--keep-alive-timeout` and `--max-connections`.
    func validateConnectionOptions() throws {
        let longest = ServerConfiguration.maxConnectionTimeout
        for (flag, value) in [("--read-timeout", readTimeout), ("--keep-alive-timeout", keepAliveTimeout)] {
            guard value.isFinite, value > 0, value <= longest else {
                throw ValidationError("\(flag) takes seconds above 0 and at most \(Int(longest)), got \(value).")
            }
        }
        if let maxConnections = connectionLimit, !(1...ServerConfiguration.maxConnectionLimit).contains(maxConnections) {
            throw ValidationError("--max-connections takes 1–\(ServerConfiguration.maxConnectionLimit), got \(maxConnections).")
        }
    }

    func applyConnectionOptions(to configuration: inout ServerConfiguration) {
        configuration.readTimeout = readTimeout
        configuration.keepAliveTimeout = keepAliveTimeout
        configuration.maxConnections = connectionLimit
    }

    /// `--max-connections`, else `WEBIMAGE_MAX_CONNECTIONS`; nil: the server derives it.
    var connectionLimit: Int? { maxConnections ?? Env.int("MAX_CONNECTIONS") }
}
