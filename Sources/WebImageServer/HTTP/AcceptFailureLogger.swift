import Logging
import NIOCore

/// Logs the listening socket's failures to accept a connection (past the open-file limit:
/// `EMFILE`), which NIO's accept backoff otherwise takes silently: it stops accepting for a
/// second and tries again, the waiting connections held in the listen backlog. At the front of
/// the listening channel's pipeline; at most one warning in ``EdgeWarnings/interval``.
final class AcceptFailureLogger: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel

    private let logger: Logger
    private let warnings = EdgeWarnings()

    init(logger: Logger) {
        self.logger = logger
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? IOError {
            warnings.note { suppressed in
                logger.warning("accepting connections failed; new connections wait and accepting resumes in a second",
                               metadata: ["error": "\(error.description)", "failures_since_last_warning": "\(suppressed)"])
            }
        }
        context.fireErrorCaught(error)
    }
}

@available(*, unavailable)
extension AcceptFailureLogger: Sendable {}
