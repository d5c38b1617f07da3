import Hummingbird
import NIOCore

/// A request's context: Hummingbird's, and the connection the request came on, so its work can
/// be stopped when the client leaves (``ClientDepartures``).
struct ServerRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connection the request came on.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
