-- Headless Neovim (0.7+): run the Neovim snippet of docs/editors.md (its FileType autocmd starts and attaches
-- `trtlint lsp`), open two files of a project, edit the C++ plugin name constant in the buffer (unsaved),
-- change it back, and record the diagnostics Neovim received for the Python file at each step, and the LSP
-- clients serving each buffer, as JSON. Driven by tests/test_nvim.py through environment variables.
local snippet = os.getenv("TRTLINT_NVIM_SNIPPET")
local py_file = os.getenv("TRTLINT_NVIM_PY")
local cpp_file = os.getenv("TRTLINT_NVIM_CPP")
local out = os.getenv("TRTLINT_NVIM_OUT")
local result = { steps = {}, t0 = vim.loop.hrtime() / 1e6 }

local function finish()
  local f = io.open(out, "w")
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd("qall!")
end

local function snapshot(bufnr)
  local items = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(items, { code = d.code, line = d.lnum + 1, col = d.col + 1, source = d.source, message = d.message })
  end
  return items
end

local function has(bufnr, code, line)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.code == code and d.lnum + 1 == line then
      return true
    end
  end
  return false
end

local function client_ids(bufnr)
  local ids = {}
  for id, _ in pairs(vim.lsp.buf_get_clients(bufnr)) do
    table.insert(ids, id)
  end
  table.sort(ids)
  return ids
end

local loaded, err = pcall(dofile, snippet)   -- the docs' snippet, verbatim
if not loaded then
  result.error = "the snippet failed: " .. tostring(err)
  finish()
  return
end

vim.cmd("edit " .. vim.fn.fnameescape(py_file))   -- FileType python: the snippet starts and attaches a client
local py_buf = vim.api.nvim_get_current_buf()
local ok = vim.wait(60000, function() return has(py_buf, "TRT101", 32) end, 50)
table.insert(result.steps, { name = "open", ok = ok, diagnostics = snapshot(py_buf), t = vim.loop.hrtime() / 1e6 })

vim.cmd("edit " .. vim.fn.fnameescape(cpp_file))   -- FileType cpp: the same project, so the same client
local cpp_buf = vim.api.nvim_get_current_buf()
vim.wait(10000, function() return #client_ids(cpp_buf) > 0 end, 20)
local line = vim.api.nvim_buf_get_lines(cpp_buf, 11, 12, false)[1]
local edited = line:gsub('"FooPlugin"', '"FooPluginX"')
vim.api.nvim_buf_set_lines(cpp_buf, 11, 12, false, { edited })
ok = vim.wait(60000, function() return has(py_buf, "TRT101", 17) end, 20)
table.insert(result.steps, { name = "cpp-edit", ok = ok, diagnostics = snapshot(py_buf), t = vim.loop.hrtime() / 1e6 })

vim.api.nvim_buf_set_lines(cpp_buf, 11, 12, false, { line })
ok = vim.wait(60000, function() return not has(py_buf, "TRT101", 17) end, 20)
table.insert(result.steps, { name = "cpp-revert", ok = ok, diagnostics = snapshot(py_buf), t = vim.loop.hrtime() / 1e6 })
result.modified = vim.api.nvim_buf_get_option(cpp_buf, "modified")
result.py_clients = client_ids(py_buf)
result.cpp_clients = client_ids(cpp_buf)
result.clients = {}
for _, c in ipairs(vim.lsp.get_active_clients()) do
  table.insert(result.clients, { id = c.id, name = c.name, root_dir = c.config.root_dir })
end
finish()
