import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension ImageServer {
    /// Answers `GET /info/…` (see ``ImagePipeline/info(target:)``): 200 with the source's JSON,
    /// or the error a processing URL with the same fault gets.
    func infoAnswer(target: String) async -> Result<ImageServerResponse, ServerError> {
        guard target.utf8.count <= configuration.maxURLLength else {
            return .failure(ServerError(status: 414, name: "url_too_long",
                                        message: "The URL is longer than \(configuration.maxURLLength) bytes."))
        }
        do {
            let body = try await pipeline.info(target: target)
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "no-cache"
            return .success(ImageServerResponse(status: .ok, headers: headers, body: body))
        } catch let error as ServerError {
            return .failure(error)
        } catch is CancellationError {
            return .failure(ServerError(status: 499, name: "cancelled", message: "The request was cancelled."))
        } catch {
            return .failure(.internalError(error))
        }
    }
}
