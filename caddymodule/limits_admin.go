package caddymodule

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2"
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
	now := time.Now()
	reports := []any{}
	var firstErr error
	limitSets.Range(func(k, _ any) bool {
		h := k.(*Handler)
		rs, err := h.limits.Report(r.Context(), h.clientKeyNames, now)
		if err != nil {
			firstErr = err
			return false
		}
		for _, rep := range rs {
			reports = append(reports, rep)
		}
		return true
	})
	if firstErr != nil {
		return caddy.APIError{HTTPStatus: http.StatusServiceUnavailable, Err: firstErr, Message: "the state store could not be read"}
	}
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(reports)
}

// Interface guards
var _ caddy.AdminRouter = limitsAdmin{}
