// `import WebImage` brings the whole library: the image layer (images, coders, transformers) and
// the load layer (request vocabulary, caches, loaders) under the manager.
@_exported import WebImageCodecs
@_exported import WebImageLoading
