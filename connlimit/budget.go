package connlimit

// The budget every listener shares: their shares plus a reserve to borrow.

import "sync"

// Budget is the connections every listener together may hold: their
// shares, which Listen hands out, plus a reserve any full listener may
// borrow from.
type Budget struct {
	mu        sync.Mutex
	reserve   int // free reserve slots
	listeners []*Listener
	refusing  chan struct{} // a slot per refusal being written
}

// NewBudget makes a budget whose reserve holds reserve connections.
func NewBudget(reserve int) *Budget {
	return &Budget{reserve: max(reserve, 0), refusing: make(chan struct{}, maxRefusing)}
}

func (b *Budget) borrow() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.reserve == 0 {
		return false
	}
	b.reserve--
	return true
}

// giveBack returns a reserve slot and wakes every listener: whichever is
// waiting for room may take it.
func (b *Budget) giveBack() {
	b.mu.Lock()
	b.reserve++
	ls := b.listeners
	b.mu.Unlock()
	for _, l := range ls {
		l.signal()
	}
}
