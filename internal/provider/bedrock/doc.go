// Package bedrock lets the Anthropic Messages adapter call Claude models on
// Amazon Bedrock. It is an http.RoundTripper placed closest to the wire: the
// adapter sends an ordinary Messages request (POST .../v1/messages, model
// and stream in the body) and the transport turns it into Bedrock's
// InvokeModelWithResponseStream, authenticates it (a Bedrock API key as a
// bearer token, else SigV4 with the AWS credential chain) and turns the
// AWS event-stream answer back into the Messages API's server-sent events.
// So the adapter's conversion, thinking, caching, usage and error rules
// apply unchanged.
//
// Nothing happens at start-up or construction: the AWS configuration
// (environment, shared files, SSO, IMDS, ...) is loaded on the first call.
package bedrock
