import HTTPTypes

extension ImageServer {
    /// Answers one request as the server's own HTTP listener would, for an application that
    /// mounts the image server's routes beside its own in any HTTP framework (Hummingbird, Vapor,
    /// …) instead of calling ``run(onRunning:onStopping:onCutShort:)``.
    ///
    /// `request.path` is the target the image server sees, as sent (not percent-decoded): strip
    /// the prefix the routes are mounted under, so that `/images/insecure/rs:fit:300:300/plain/…`
    /// arrives as `/insecure/rs:fit:300:300/plain/…`. The method and the `Accept`,
    /// `If-None-Match` and `X-Request-ID` headers are read; there is no request body.
    ///
    /// Every check the listener makes on a request is made here too — the URL length limit,
    /// signatures, the source guard, the job limits, the queue, the request timeout — and the
    /// request is counted in `/metrics` and logged. What belongs to connections is the host
    /// framework's: connection limits and timeouts. Cancelling the calling task stops the
    /// request's work (answered 499, `cancelled`).
    ///
    /// ```swift
    /// var head = request.head
    /// head.path = String(target.dropFirst("/images".count))
    /// let answer = await server.response(to: head)
    /// ```
    public func response(to request: HTTPRequest) async -> ImageServerResponse {
        await answer(request, connection: nil)
    }

    /// Stops an embedded server: requests that come after it are answered 503 (`shutting_down`),
    /// and the source loaders, the memory-pressure monitor and the shared cache's connections
    /// are closed. Call it once, after the host framework has stopped sending requests. A server
    /// started with ``run(onRunning:onStopping:onCutShort:)`` does this itself when it stops.
    public func shutdown() async {
        beginDraining()
        await pipeline.shutdown()
    }
}
