// Package admin reports the use of llmbridge's limits: the admin API
// module admin.api.llmbridge (GET /llmbridge/limits, each client key's use
// of each limit of the loaded configuration, read from the state store)
// and the `caddy llmbridge-limits` command that prints it as a table. It
// reads what the handlers publish in caddymodule/limits and imports
// nothing of the handler.
package admin

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/llmbridge/llmbridge/caddymodule/limits"
)

func init() {
	caddy.RegisterModule(limitsAdmin{})
}

// limitsAdmin is an admin API module that reports each client key's use
// of the loaded configuration's limits: GET /llmbridge/limits answers a
// JSON array of {key, limit, models, scope, max, used, reset}, read from
// the state store (the fleet's use, with a shared store).
type limitsAdmin struct{}

// CaddyModule returns the Caddy module information.
func (limitsAdmin) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "admin.api.llmbridge",
		New: func() caddy.Module { return new(limitsAdmin) },
	}
}

// Routes returns the admin routes.
func (limitsAdmin) Routes() []caddy.AdminRoute {
	return []caddy.AdminRoute{{Pattern: "/llmbridge/limits", Handler: caddy.AdminHandlerFunc(serveLimitsReport)}}
}

// serveLimitsReport answers GET /llmbridge/limits.
func serveLimitsReport(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodGet {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Message: "method not allowed; use GET"}
	}
	reports, err := limits.Loaded(r.Context(), time.Now())
	if err != nil {
		return caddy.APIError{HTTPStatus: http.StatusServiceUnavailable, Err: err, Message: "the state store could not be read"}
	}
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(reports)
}

// Interface guards
var _ caddy.AdminRouter = limitsAdmin{}
