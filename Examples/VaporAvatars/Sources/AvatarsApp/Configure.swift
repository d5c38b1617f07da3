import Vapor

/// Registers the avatar route on `app`, with an ``AvatarService`` for `configuration` that is
/// shut down with the application.
public func configure(_ app: Application, avatars configuration: AvatarConfiguration) throws {
    let service = try AvatarService(configuration: configuration)
    app.lifecycle.use(AvatarServiceLifecycle(service: service))
    try app.register(collection: AvatarRoutes(service: service))
}

/// Shuts the service's downloader down when the application stops.
private struct AvatarServiceLifecycle: LifecycleHandler {
    let service: AvatarService

    func shutdownAsync(_ application: Application) async {
        await service.shutdown()
    }
}
