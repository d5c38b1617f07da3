import WebImageCodecs
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// One HTTP exchange whose body is collected on the connection's event loop, as it is read.
///
/// The body is appended where the client reads it, not handed through an async stream. That
/// matters when a connection ends part-way: the bytes the client had already read but the
/// consumer had not yet asked for would otherwise be dropped with the connection, and a resumed
/// download would ask for them again. Here every byte read is in the body (and kept to resume).
///
/// Bytes are collected from the head on, while the caller looks at the head and decides:
/// ``accept(declaredLength:prefix:)`` keeps the body (after the bytes of an earlier, cut transfer
/// when it continues one), ``discard()`` reads past it. Progress is reported as new totals
/// (``nextProgress()``); a body over the limit ends the exchange with ``BodyTooLarge``. ``end()``
/// must be called on every path: it cancels an exchange still running.
final class HTTPExchange: HTTPClientResponseDelegate, Sendable {
    typealias Response = Void

    /// The body grew past the exchange's limit.
    struct BodyTooLarge: Error {}

    /// How much of an unwanted body (a redirect's, a challenge's) is read to keep the connection.
    static let discardLimit = 64 * 1024

    private enum Mode {
        case collecting
        case discarding
    }

    private struct State {
        var task: HTTPClient.Task<Void>?
        var head: HTTPResponseHead?
        var mode = Mode.collecting
        var body = ResponseBody(declaredLength: 0, limit: 0)
        var discarded = 0
        /// The body length last returned by ``nextProgress()``.
        var reported = 0
        var outcome: Result<Void, any Error>?
        /// Counts changes (head, bytes, end), so a waiter knows whether it missed one.
        var changes = 0
        var waiter: CheckedContinuation<Void, Never>?

        /// Notes a change and takes the waiter to wake.
        mutating func changed() -> CheckedContinuation<Void, Never>? {
            changes += 1
            defer { waiter = nil }
            return waiter
        }
    }

    private let state = Mutex(State())
    /// The most bytes a body may have, an earlier transfer's included.
    private let limit: Int

    private init(limit: Int) {
        self.limit = limit
    }

    /// Sends `request` on `client` and waits for the response head. The exchange runs on
    /// `eventLoop`, which new connections for it are opened on: when every exchange with an origin
    /// names the same loop, the connection's loop is the exchange's, and its body is collected as
    /// the connection reads it (no hop in between).
    static func start(_ request: HTTPClient.Request, on client: HTTPClient, eventLoop: any EventLoop, limit: Int,
                      logger: Logger) async throws -> (HTTPExchange, HTTPResponseHead) {
        let exchange = HTTPExchange(limit: limit)
        let task = client.execute(request: request, delegate: exchange, eventLoop: .delegate(on: eventLoop),
                                  deadline: nil, logger: logger)
        exchange.state.withLock { $0.task = task }
        task.futureResult.whenComplete { result in exchange.finish(result) }
        do {
            let head = try await exchange.wait { state -> HTTPResponseHead? in
                if let head = state.head { return head }
                if case .failure(let error) = state.outcome { throw error }
                return nil
            }
            return (exchange, head)
        } catch {
            exchange.end()
            throw error
        }
    }

    // MARK: - The caller's side

    /// Keeps the body, `declaredLength` bytes in all: `prefix` (bytes stored from an earlier, cut
    /// transfer that this response continues) first, then what the server sends.
    func accept(declaredLength: Int64?, prefix: Data?) {
        let task = state.withLock { state -> HTTPClient.Task<Void>? in
            state.mode = .collecting
            guard let prefix else { return nil }
            var whole = ResponseBody(declaredLength: declaredLength, limit: limit)
            prefix.withUnsafeBytes { whole.append($0) }
            state.body.snapshot().withUnsafeBytes { whole.append($0) }
            state.body = whole
            state.reported = prefix.count
            return whole.count > limit ? state.task : nil
        }
        task?.fail(reason: BodyTooLarge())
    }

    /// Reads past an unwanted body so the connection can serve the next request; one longer than
    /// ``discardLimit`` is cut instead. Errors are not the caller's concern.
    func discard() async {
        let task = state.withLock { state -> HTTPClient.Task<Void>? in
            state.mode = .discarding
            state.discarded += state.body.count
            state.body = ResponseBody(declaredLength: 0, limit: 0)
            return state.discarded > Self.discardLimit ? state.task : nil
        }
        task?.cancel()
        _ = try? await wait { state -> Void? in state.outcome == nil ? nil : () }
    }

    /// The body's new length once more bytes arrived, or `nil` when it ended; throws how the
    /// exchange failed (``BodyTooLarge``, the client's error, cancellation).
    func nextProgress() async throws -> Int? {
        try await wait { state -> Int?? in
            if state.body.count > state.reported {
                state.reported = state.body.count
                return .some(state.reported)
            }
            switch state.outcome {
            case .none: return nil
            case .success: return .some(nil)
            case .failure(let error): throw error
            }
        }
    }

    /// The first `count` bytes of the body, as a view later appends leave untouched.
    func snapshot(count: Int) -> Data {
        state.withLock { $0.body.snapshot(count: count) }
    }

    /// Takes the body collected so far out of the exchange (an ended one: the whole body, or
    /// for a cut one the bytes kept to resume), so that finishing it need not copy it.
    func takeBody() -> ResponseBody {
        state.withLock { state in
            defer { state.body = ResponseBody(declaredLength: 0, limit: 0) }
            return state.body
        }
    }

    /// Ends the exchange: cancels it when it is still running. Safe to call more than once.
    func end() {
        let task = state.withLock { $0.outcome == nil ? $0.task : nil }
        task?.cancel()
    }

    /// Suspends until `check` gives a value (or throws); the task's cancellation cancels the exchange.
    private func wait<T: Sendable>(_ check: @escaping @Sendable (inout State) throws -> T?) async throws -> T {
        try await withTaskCancellationHandler {
            while true {
                let (answer, seen) = state.withLock { state -> (Result<T, any Error>?, Int) in
                    do {
                        return (try check(&state).map { .success($0) }, state.changes)
                    } catch {
                        return (.failure(error), state.changes)
                    }
                }
                if let answer { return try answer.get() }
                await withCheckedContinuation { continuation in
                    let missed = state.withLock { state -> Bool in
                        if state.changes != seen { return true }
                        state.waiter = continuation
                        return false
                    }
                    if missed { continuation.resume() }
                }
            }
        } onCancel: {
            self.end()
        }
    }

    private func finish(_ result: Result<Void, any Error>) {
        let waiter = state.withLock { state in
            if state.outcome == nil { state.outcome = result }
            return state.changed()
        }
        waiter?.resume()
    }

    // MARK: - The client's side (on the event loop)

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        // A success's declared length sizes the body; any other status's body grows as it comes
        // (it is usually read past, and its claimed length is not worth memory up front).
        let declared = (200..<300).contains(head.status.code)
            ? head.headers.first(name: "Content-Length").flatMap { Int64($0) } : nil
        let waiter = state.withLock { state in
            state.head = head
            state.body = ResponseBody(declaredLength: declared, limit: limit)
            return state.changed()
        }
        waiter?.resume()
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        enum Next { case go, tooLarge, cut }
        let (next, waiter) = state.withLock { state -> (Next, CheckedContinuation<Void, Never>?) in
            switch state.mode {
            case .collecting:
                if state.body.count + buffer.readableBytes > limit { return (.tooLarge, nil) }
                buffer.withUnsafeReadableBytes { state.body.append($0) }
                return (.go, state.changed())
            case .discarding:
                state.discarded += buffer.readableBytes
                return (state.discarded > Self.discardLimit ? .cut : .go, nil)
            }
        }
        waiter?.resume()
        switch next {
        case .go: return task.eventLoop.makeSucceededVoidFuture()
        case .tooLarge: return task.eventLoop.makeFailedFuture(BodyTooLarge())
        case .cut: return task.eventLoop.makeFailedFuture(HTTPClientError.cancelled)
        }
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {}
}
