package admin

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	"github.com/llmbridge/llmbridge/caddymodule/limits"
)

func init() {
	fs := flag.NewFlagSet("llmbridge-limits", flag.ExitOnError)
	fs.String("address", "localhost:2019", "the address of the Caddy admin API")
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "llmbridge-limits",
		Usage: "[--address <admin address>]",
		Short: "Prints each client key's use of its llmbridge limits in the current windows",
		Long: `
Asks the running Caddy's admin API (GET /llmbridge/limits) for each client
key's use of each limit of the loaded configuration in its current window,
read from the state store (the whole fleet's use when the instances share a
Valkey store), and prints it as a table: the key, the limit, the use and
the cap, and when the window resets.`,
		Flags: fs,
		Func: func(f caddycmd.Flags) (int, error) {
			if err := printLimits(os.Stdout, &http.Client{Timeout: 10 * time.Second}, f.String("address"), time.Now()); err != nil {
				return caddy.ExitCodeFailedQuit, err
			}
			return caddy.ExitCodeSuccess, nil
		},
	})
}

// printLimits writes the admin API's limits report of the Caddy at address
// to w as a table.
func printLimits(w io.Writer, c *http.Client, address string, now time.Time) error {
	if !strings.Contains(address, "://") {
		address = "http://" + address
	}
	resp, err := c.Get(strings.TrimSuffix(address, "/") + "/llmbridge/limits")
	if err != nil {
		return fmt.Errorf("asking the admin API: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the admin API answered %s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	var reports []limits.Report
	if err := json.Unmarshal(body, &reports); err != nil {
		return fmt.Errorf("reading the admin API's report: %v", err)
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tLIMIT\tUSED\tMAX\tRESETS IN\tMODELS\tSCOPE")
	for _, r := range reports {
		reset := "-"
		if r.Reset != nil {
			reset = r.Reset.Sub(now).Round(time.Second).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Key, r.Limit, limits.FormatAmount(r.Used), limits.FormatAmount(r.Max), reset,
			strings.Join(r.Models, ","), r.Scope)
	}
	if len(reports) == 0 {
		fmt.Fprintln(tw, "(no limits in the loaded configuration)\t\t\t\t\t\t")
	}
	return tw.Flush()
}
