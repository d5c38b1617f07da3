import Foundation
import NIOCore

extension ServedImage {
    /// An `/info` answer's JSON, kept in the memory result cache beside results (under keys of its
    /// own, ``ImagePipeline/infoKey(_:_:)``), so it shares their limits and eviction and leaves
    /// with the results of its source. Only its body, source and identity are read: the info
    /// answer sets its own headers.
    init(json: ByteBuffer, source: URL, sourceIdentity: String) {
        self.init(body: json, format: .undefined, etag: "", filenameStem: "info", returnAttachment: false,
                  expires: nil, negotiated: false, source: source, sourceIdentity: sourceIdentity)
    }
}
