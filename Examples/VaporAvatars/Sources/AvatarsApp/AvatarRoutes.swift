import Foundation
import Vapor
import WebImage

/// `GET /avatars/:user?size=N`: the avatar of `user` from the avatar store as an N×N square
/// (default 128), WebP when the client's `Accept` names `image/webp`, JPEG otherwise.
///
/// `X-Avatar-Cache` says where the thumbnail came from: `miss` (fetched now), `memory` or `disk`.
/// A user name is 1 to 64 letters, digits, `-` or `_` (400 otherwise); a size outside the
/// configured range is 400; an avatar the store does not have is 404; a store that fails, or a
/// file that is not an image, is 502.
struct AvatarRoutes: RouteCollection {
    let service: AvatarService

    func boot(routes: any RoutesBuilder) throws {
        routes.get("avatars", ":user", use: avatar)
    }

    @Sendable func avatar(_ request: Request) async throws -> Response {
        let user = request.parameters.get("user") ?? ""
        guard (1...64).contains(user.utf8.count),
              user.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }) else {
            throw Abort(.badRequest, reason: "A user name is 1 to 64 letters, digits, '-' or '_'.")
        }
        let sizes = service.configuration.sizes
        let side: Int
        if let text = request.query[String.self, at: "size"] {
            guard let value = Int(text), sizes.contains(value) else {
                throw Abort(.badRequest, reason: "size must be a number from \(sizes.lowerBound) to \(sizes.upperBound).")
            }
            side = value
        } else {
            side = 128
        }

        let avatar: AvatarService.Avatar
        do {
            avatar = try await service.avatar(user: user, side: side)
        } catch {
            throw error.httpStatus == 404 ? Abort(.notFound, reason: "No avatar for \(user).")
                : Abort(.badGateway, reason: "The avatar store failed: \(error.code.name).")
        }

        let webP = request.headers[.accept].contains { $0.contains("image/webp") }
        let format: ImageFormat = webP ? .webp : .jpeg
        let body = try CodersManager.shared.encode(avatar.image, as: format, options: EncodeOptions(compressionQuality: 0.85))
        var headers = HTTPHeaders()
        headers.contentType = HTTPMediaType(type: "image", subType: webP ? "webp" : "jpeg")
        headers.add(name: .cacheControl, value: "public, max-age=3600")
        headers.add(name: .vary, value: "Accept")
        headers.add(name: "X-Avatar-Cache", value: Self.cacheName(avatar.cacheType))
        return Response(status: .ok, headers: headers, body: .init(data: body))
    }

    static func cacheName(_ type: ImageCacheType) -> String {
        switch type {
        case .none: "miss"
        case .memory, .all: "memory"
        case .disk: "disk"
        }
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
