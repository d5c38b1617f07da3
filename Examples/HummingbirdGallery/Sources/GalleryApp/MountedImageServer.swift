import Hummingbird
import ServiceLifecycle
import WebImageServer

/// The image server's routes under `prefix`: a request whose target starts with `prefix/` is
/// answered by ``ImageServer/response(to:)`` with the prefix taken off its target; every other
/// request goes on to the application's own routes.
struct MountedImageServer<Context: RequestContext>: RouterMiddleware {
    let server: ImageServer
    let prefix: String

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        // The raw target, as sent: a source URL inside it must reach the server undecoded.
        guard let target = request.head.path, target.hasPrefix(prefix + "/") else {
            return try await next(request, context)
        }
        var head = request.head
        head.path = String(target.dropFirst(prefix.count))
        let answer = await server.response(to: head)
        return Response(status: answer.status, headers: answer.headers,
                        body: answer.body.map { ResponseBody(byteBuffer: $0) } ?? ResponseBody())
    }
}

/// Stops the image server once the application's HTTP server has stopped: Hummingbird stops
/// the services it was given after its own.
struct ImageServerService: Service {
    let server: ImageServer

    func run() async throws {
        try? await gracefulShutdown()
        await server.shutdown()
    }
}
