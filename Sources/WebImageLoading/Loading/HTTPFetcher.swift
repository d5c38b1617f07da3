import WebImageCodecs
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// Runs one download's HTTP exchange on the shared client: redirects (handled here so that
/// Authorization and Cookie never cross origins), Basic challenges, cookies, validation and a
/// size-checked streaming body.
final class HTTPFetcher: Sendable {
    let client: HTTPClient
    let cookieJar: CookieJar
    /// Origins that asked for Basic credentials; later requests to them send the credential at once.
    let authOrigins: Mutex<Set<String>>
    let logger: Logger
    /// Bodies cut short, kept to resume.
    let resumables: ResumableDataStore
    /// The safe-fetch guard's clients, when it is on: every hop is checked and sent on one of them.
    let guarded: GuardedClients?

    init(client: HTTPClient, cookieJar: CookieJar, resumables: ResumableDataStore, guarded: GuardedClients?,
         logger: Logger) {
        self.client = client
        self.cookieJar = cookieJar
        self.resumables = resumables
        self.guarded = guarded
        self.authOrigins = Mutex([])
        self.logger = logger
    }

    /// The exchange for `plan`; throws ``WebImageError`` (or the client's errors, mapped by the caller).
    func fetch(_ plan: DownloadPlan, observer: some FetchObserver) async throws -> FetchOutcome {
        var request = plan.request
        let firstOrigin = Self.origin(of: request.url)
        var redirects = 0
        var visited: Set<String> = [request.url.absoluteString]
        var answeredChallenge = false
        var resume = takeResumableBody(for: plan)
        while true {
            try Task.checkCancellation()
            // Before any socket code sees the URL (a redirect hop's was checked when it was read).
            _ = try URLOrigin(validating: request.url)
            if let allowList = plan.sourceAllowList, !allowList.admits(request.url) {
                throw WebImageError(.sourceNotAllowed,
                    "The URL \(request.url.absoluteString) is not under an allowed source.", url: request.url)
            }
            let sameOrigin = Self.origin(of: request.url) == firstOrigin
            let sendCredential = sameOrigin && (answeredChallenge
                || authOrigins.withLock { $0.contains(firstOrigin) })
            let lease = try await guarded?.lease(for: request.url) ?? ClientLease(client: client)
            defer { lease.release() }
            let (exchange, response) = try await execute(
                makeHTTPRequest(request, plan: plan, credential: sendCredential ? plan.credential : nil, resume: resume),
                on: lease, limit: plan.maximumResponseSize)
            defer { exchange.end() }
            if plan.handleCookies {
                cookieJar.store(response.headers["Set-Cookie"], from: request.url)
            }
            let status = Int(response.status.code)
            if [301, 302, 303, 307, 308].contains(status), let location = response.headers.first(name: "Location") {
                await exchange.discard()
                redirects += 1
                request = try redirected(request, to: location, status: status, count: redirects,
                                         plan: plan, visited: &visited)
                logger.debug("redirect", metadata: ["status": "\(status)", "to": "\(request.url)"])
                continue
            }
            if status == 401, sameOrigin, !answeredChallenge, plan.credential != nil,
               request.headers[header: "Authorization"] == nil,
               response.headers["WWW-Authenticate"].contains(where: { $0.lowercased().hasPrefix("basic") }) {
                await exchange.discard()
                authOrigins.withLock { _ = $0.insert(firstOrigin) }
                answeredChallenge = true
                continue
            }
            if let entry = resume {
                switch Self.answer(response, resuming: entry) {
                case .append:
                    break
                case .startOver:
                    await exchange.discard()
                    logger.debug("the stored partial body does not fit the answer; starting over",
                                 metadata: ["url": "\(request.url)", "status": "\(status)"])
                    resume = nil
                    continue
                case .wholeBody:
                    resume = nil
                }
            }
            return try await receive(response, of: exchange, url: request.url, plan: plan, redirects: redirects,
                                     resumed: resume, observer: observer)
        }
    }

    /// Sends `http` on the lease's client and waits for the head. A GET or HEAD that the pool
    /// handed a connection the server had just closed (a keep-alive race, or one a response
    /// overran) never reached the server, so it is sent once more, on a fresh connection, as
    /// URLSession does. A failure with no response moves a guarded host on to its next checked address.
    private func execute(_ http: HTTPClient.Request, on lease: ClientLease,
                         limit: Int) async throws -> (HTTPExchange, HTTPResponseHead) {
        let loop = Self.eventLoop(for: http.url, in: lease.client.eventLoopGroup)
        do {
            do {
                return try await HTTPExchange.start(http, on: lease.client, eventLoop: loop, limit: limit, logger: logger)
            } catch ChannelError.ioOnClosedChannel where http.method == .GET || http.method == .HEAD {
                try Task.checkCancellation()
                logger.debug("stale pooled connection; sending again", metadata: ["url": "\(http.url)"])
                return try await HTTPExchange.start(http, on: lease.client, eventLoop: loop, limit: limit, logger: logger)
            }
        } catch {
            if !Task.isCancelled { guarded?.connectionFailed(lease) }
            throw error
        }
    }

    private func makeHTTPRequest(_ request: ImageDownloadRequest, plan: DownloadPlan,
                                 credential: DownloadCredential?, resume: ResumableDataStore.Entry?) throws -> HTTPClient.Request {
        var http = try HTTPClient.Request(url: request.url, method: HTTPMethod(rawValue: request.method))
        for field in request.headers { http.headers.add(name: field.name, value: field.value) }
        if plan.handleCookies, let cookie = cookieJar.cookieHeader(for: request.url) {
            http.headers.replaceOrAdd(name: "Cookie", value: cookie)
        }
        if let credential, !http.headers.contains(name: "Authorization") {
            http.headers.add(name: "Authorization", value: credential.authorizationHeader)
        }
        if let resume {
            http.headers.replaceOrAdd(name: "Range", value: "bytes=\(resume.data.count)-")
            http.headers.replaceOrAdd(name: "If-Range", value: resume.validator)
        }
        if let body = request.body { http.body = .byteBuffer(ByteBuffer(bytes: body)) }
        if plan.allowInvalidCertificates, request.url.scheme?.lowercased() == "https" {
            http.tlsConfiguration = .makeClientConfiguration()
            http.tlsConfiguration?.certificateVerification = .none
        }
        return http
    }

    /// The request to send after a redirect to `location`, or a ``WebImageError/Code/tooManyRedirects``.
    private func redirected(_ request: ImageDownloadRequest, to location: String, status: Int, count: Int,
                            plan: DownloadPlan, visited: inout Set<String>) throws -> ImageDownloadRequest {
        let limit = plan.maximumRedirects
        guard let next = URL(string: location, relativeTo: request.url)?.absoluteURL else {
            throw WebImageError(.invalidDownloadResponse,
                "The server redirected to \"\(location.prefix(512))\", which is not a URL.", url: request.url,
                httpStatus: status)
        }
        do {
            _ = try URLOrigin(validating: next)
        } catch {
            throw WebImageError(.invalidDownloadResponse,
                "The server redirected to an invalid URL: \(error.message)", url: request.url, httpStatus: status)
        }
        if let allowList = plan.sourceAllowList, !allowList.admits(next) {
            throw WebImageError(.sourceNotAllowed,
                "The server redirected to \(next.absoluteString), which is not under an allowed source.",
                url: request.url, httpStatus: status)
        }
        if count > limit {
            throw WebImageError(.tooManyRedirects, "More than \(limit) redirects; the last went to \(next.absoluteString).",
                                url: request.url, httpStatus: status)
        }
        guard visited.insert(next.absoluteString).inserted else {
            throw WebImageError(.tooManyRedirects, "The redirects loop back to \(next.absoluteString).",
                                url: request.url, httpStatus: status)
        }
        var request = request
        if Self.origin(of: next) != Self.origin(of: request.url) {
            request.headers.set("Authorization", nil)
            request.headers.set("Cookie", nil)
        }
        if status == 303 || ((status == 301 || status == 302) && request.method == "POST") {
            request.method = "GET"
            request.body = nil
        }
        request.url = next
        return request
    }

    /// Validates the final response and streams its body within the size limit. With `resumed`,
    /// the response is a 206 for the rest of that stored body, which the body starts with.
    private func receive(_ response: HTTPResponseHead, of exchange: HTTPExchange, url: URL, plan: DownloadPlan,
                         redirects: Int, resumed: ResumableDataStore.Entry?,
                         observer: some FetchObserver) async throws -> FetchOutcome {
        let declared = response.headers.first(name: "Content-Length").flatMap { Int64($0) }
        // The whole body's length: the stored bytes plus what this response declares.
        let length = resumed.map { entry in declared.map { $0 + Int64(entry.data.count) } ?? entry.totalLength } ?? declared
        var info = ImageResponseInfo(url: url, statusCode: Int(response.status.code),
                                     headers: response.headers.map { HTTPHeaderField(name: $0.name, value: $0.value) },
                                     expectedContentLength: length)
        if let modifier = plan.responseModifier {
            guard let modified = modifier.modify(ImageDownloadResponse(url: url, statusCode: info.statusCode,
                                                                       headers: info.headers)) else {
                observer.fetchDidReceiveResponse(info, redirects: redirects)
                throw WebImageError(.invalidDownloadResponse, "The response modifier rejected the response.",
                                    url: url, httpStatus: info.statusCode, contentType: info.contentType)
            }
            info.statusCode = modified.statusCode
            info.headers = modified.headers
        }
        observer.fetchDidReceiveResponse(info, redirects: redirects)
        if info.statusCode == 304 {
            await exchange.discard()
            return FetchOutcome(data: Data(), response: info, notModified: true)
        }
        // A resumed body is the 200 the caller asked for, delivered in two parts.
        var validated = info
        if resumed != nil, validated.statusCode == 206 { validated.statusCode = 200 }
        do {
            try validate(validated, plan: plan)
        } catch var error as WebImageError where plan.errorBodyLimit > 0 && error.code == .invalidDownloadStatusCode {
            error.responseBody = await Self.start(of: exchange, limit: plan.errorBodyLimit)
            throw error
        }
        if let length, length > Int64(plan.maximumResponseSize) {
            throw WebImageError(.responseTooLarge,
                "The response declares \(length) bytes, over the limit of \(plan.maximumResponseSize) bytes.",
                url: url, httpStatus: info.statusCode, contentType: info.contentType)
        }
        let expected = max(length ?? 0, 0)
        observer.fetchDidAcceptResponse(expected: expected)
        exchange.accept(declaredLength: length, prefix: resumed?.data)
        if let resumed {
            observer.fetchDidResume(bytes: resumed.data.count)
            let count = resumed.data.count
            observer.fetchDidReceive(received: count, expected: expected, snapshot: { exchange.snapshot(count: count) })
        }
        var received = resumed?.data.count ?? 0
        do {
            while let count = try await exchange.nextProgress() {
                received = count
                observer.fetchDidReceive(received: count, expected: expected,
                                         snapshot: { exchange.snapshot(count: count) })
            }
            try Task.checkCancellation()
            if let length, Int64(received) < length {
                throw WebImageError(.connectionFailed,
                    "The response ended after \(received) of \(length) bytes (truncated).",
                    url: url, httpStatus: info.statusCode, contentType: info.contentType)
            }
        } catch is HTTPExchange.BodyTooLarge {
            throw WebImageError(.responseTooLarge,
                "The response passed the limit of \(plan.maximumResponseSize) bytes while streaming.",
                url: url, httpStatus: info.statusCode, contentType: info.contentType)
        } catch {
            keepForResume(exchange.takeBody(), response: info, totalLength: length, resumed: resumed, plan: plan)
            throw error
        }
        var body = exchange.takeBody()
        return FetchOutcome(data: body.finish(), response: info, notModified: false)
    }

    /// The first `limit` bytes (at most) of a refused response's body; the rest is not read (the
    /// exchange is ended by its caller). A failure while reading keeps what arrived.
    private static func start(of exchange: HTTPExchange, limit: Int) async -> Data {
        exchange.accept(declaredLength: nil, prefix: nil)
        var received = 0
        while received < limit, let count = try? await exchange.nextProgress() {
            received = count
        }
        return exchange.snapshot(count: min(received, limit))
    }

    private func validate(_ info: ImageResponseInfo, plan: DownloadPlan) throws {
        if let codes = plan.acceptableStatusCodes, !codes.contains(info.statusCode) {
            throw WebImageError(.invalidDownloadStatusCode, "The server answered HTTP \(info.statusCode).",
                                url: info.url, httpStatus: info.statusCode, contentType: info.contentType)
        }
        if let types = plan.acceptableContentTypes, let mime = info.mimeType, !mime.isEmpty, !types.contains(mime) {
            throw WebImageError(.invalidDownloadContentType,
                "The content type \(mime) is not one of the acceptable types.",
                url: info.url, httpStatus: info.statusCode, contentType: info.contentType)
        }
    }

    /// The event loop for exchanges with `url`'s origin: always the same one, so that its requests
    /// share kept-alive connections (an exchange runs on its connection's loop, see ``HTTPExchange``).
    static func eventLoop(for url: URL, in group: any EventLoopGroup) -> any EventLoop {
        let loops = Array(group.makeIterator())
        var hasher = Hasher()
        hasher.combine(origin(of: url))
        return loops[Int(UInt(bitPattern: hasher.finalize()) % UInt(loops.count))]
    }

    /// scheme://host:port, lowercased, with the default port filled in.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }
}
