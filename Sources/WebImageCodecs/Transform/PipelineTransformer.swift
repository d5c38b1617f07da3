/// Runs transformers one after another (`SDImagePipelineTransformer`).
///
/// Each step goes through ``ImageTransforming/transformedImage(_:forKey:)``, so every child's
/// own ``ImageTransforming/preserveImageMetadata`` is applied between steps; the pipeline's own
/// is false, leaving the result as the last step made it. A failing step fails the pipeline.
///
/// Key: the children's keys joined with `-` (empty for no children), e.g.
/// `SDImageResizingTransformer({100.000000,100.000000},2)-SDImageFlippingTransformer(1,1)`.
public struct PipelineTransformer: ImageTransforming {
    /// The steps, in order.
    public let transformers: [any ImageTransforming]

    /// A pipeline running `transformers` in order.
    public init(_ transformers: [any ImageTransforming]) {
        self.transformers = transformers
    }

    /// The children's keys joined with `-`.
    public var transformerKey: String {
        transformers.map(\.transformerKey).joined(separator: "-")
    }

    /// False: each step already applied its own metadata rule.
    public var preserveImageMetadata: Bool { false }

    /// The image after every step; nil as soon as one step fails.
    public func transform(_ image: Image, forKey key: String) -> Image? {
        var current = image
        for transformer in transformers {
            guard let next = transformer.transformedImage(current, forKey: key) else { return nil }
            current = next
        }
        return current
    }
}
