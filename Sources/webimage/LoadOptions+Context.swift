import WebImage

extension LoadOptions {
    /// The per-request context: `--thumbnail` and the `--transform` pipeline.
    func context() throws -> WebImageContext {
        var context = WebImageContext()
        context.thumbnailPixelSize = thumbnail.flatMap(PixelSize.init(parsing:))
        context.imageTransformer = try TransformSpec.transformer(for: transformSpecs)
        return context
    }
}
