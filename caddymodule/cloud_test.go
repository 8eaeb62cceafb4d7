package caddymodule

import (
	"encoding/json"
	"strings"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	awscloud "github.com/llmbridge/llmbridge/caddymodule/clouds/aws"
	"github.com/llmbridge/llmbridge/caddymodule/clouds/google"
)

// vertexCloud is the Google Cloud settings of a vertex upstream in tests.
func vertexCloud(project, location string) json.RawMessage {
	return clouds.Raw(&google.Cloud{Project: project, Location: location})
}

// awsCloud is the AWS settings of a Bedrock upstream in tests.
func awsCloud(region string) json.RawMessage {
	return clouds.Raw(&awscloud.Cloud{Region: region})
}

// testCloud is the cloud settings an upstream of a table of several
// needs: a project and location for Vertex, a region for Bedrock.
func testCloud(upstream string) json.RawMessage {
	switch {
	case strings.HasPrefix(upstream, "vertex"):
		return vertexCloud("p", "l")
	case strings.HasPrefix(upstream, "bedrock"):
		return awsCloud("us-east-1")
	}
	return nil
}

// withCloud is h with the cloud settings c, as the Caddyfile gives them.
func withCloud(h Handler, c clouds.Cloud) Handler {
	h.cloud, h.CloudRaw = c, clouds.Raw(c)
	return h
}
