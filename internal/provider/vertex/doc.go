// Package vertex lets tandem's Gemini and Anthropic Messages adapters call
// models on Google Cloud Vertex AI. It is an http.RoundTripper placed
// closest to the wire: the adapters send their ordinary requests and the
// transport points them at the project's Vertex endpoint
// (.../publishers/google/models/M:streamGenerateContent, or
// .../publishers/anthropic/models/M:streamRawPredict with the model moved
// from the body to the path and anthropic_version vertex-2023-10-16), and
// adds an OAuth access token from Google application-default credentials
// or a configured credentials file. Tokens are cached and refreshed before
// they expire.
//
// Nothing happens at start-up or construction: credentials are found on
// the first call.
package vertex
