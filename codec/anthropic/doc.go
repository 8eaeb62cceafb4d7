// Package anthropic registers with package codec the codec of Anthropic
// Messages and the protocols that speak it:
//
//   - anthropic-messages, Anthropic's own Messages API;
//   - vertex-anthropic, Messages on Vertex AI (the model in the path,
//     anthropic_version in the body);
//   - bedrock-anthropic, Messages on Amazon Bedrock's InvokeModel (the
//     model in the path, anthropic_version and anthropic_beta in the body,
//     streams of Messages events in AWS event stream chunks, and Bedrock's
//     invocation metrics).
//
// Programs import it for that effect (or codec/all). It exports only the
// anthropic_version values the cloud protocols carry (VertexVersion,
// BedrockVersion).
package anthropic
