package policy

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/llmbridge/llmbridge/codec/rules"
)

// MaxLessons bounds the models whose lessons are kept per provider; beyond
// it, an arbitrary one is forgotten for each new one.
const MaxLessons = 256

// learnedByProvider are the lessons learned, per provider (rules.ProviderFor).
var learnedByProvider = struct {
	mu sync.Mutex
	m  map[string]*Lessons
}{m: make(map[string]*Lessons)}

// LessonsFor returns the lessons learned for the models of provider.
func LessonsFor(provider string) *Lessons {
	learnedByProvider.mu.Lock()
	defer learnedByProvider.mu.Unlock()
	l := learnedByProvider.m[provider]
	if l == nil {
		l = new(Lessons)
		learnedByProvider.m[provider] = l
	}
	return l
}

// Lessons are the lessons learned for one provider's models, per
// upstream model.
type Lessons struct {
	// n is the number of entries, read without the lock so that a
	// handler that learned nothing pays nothing.
	n  atomic.Int32
	mu sync.RWMutex
	m  map[string]*Lesson
}

// Lesson is one model's rule with its lessons applied, and the
// lessons alone, as a model_rule block sets them.
type Lesson struct {
	Rule  *rules.Rule
	Delta rules.Rule
	Like  string // the model the table's rule for it is found by, or ""
	// AdaptiveForBetweenTools reports that the model refuses thinking
	// type between_tools, which a passthrough body gets as adaptive.
	AdaptiveForBetweenTools bool
	// Fix is the edit of a lesson whose Fix Fit does not report
	// (rules.Lesson.Param), which a passthrough body gets too; zero for
	// none.
	Fix rules.Adjustment
}

// Lookup returns the learned rule of model, or nil. It allocates nothing.
func (l *Lessons) Lookup(model string) *Lesson {
	if l == nil || l.n.Load() == 0 {
		return nil
	}
	l.mu.RLock()
	lr := l.m[model]
	l.mu.RUnlock()
	return lr
}

// Store keeps lr for model.
func (l *Lessons) Store(model string, lr *Lesson) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = make(map[string]*Lesson)
	}
	if _, ok := l.m[model]; !ok && len(l.m) >= MaxLessons {
		for k := range l.m {
			delete(l.m, k)
			break
		}
	}
	l.m[strings.Clone(model)] = lr
	l.n.Store(int32(len(l.m)))
}
