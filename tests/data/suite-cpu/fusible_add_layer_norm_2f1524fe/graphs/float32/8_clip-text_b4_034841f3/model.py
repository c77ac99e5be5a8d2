import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm2_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm2_parameters_bias_: torch.nn.parameter.Parameter, add: torch.Tensor, linear_3: torch.Tensor):
        l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm2_parameters_weight_ = L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm2_parameters_weight_
        l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm2_parameters_bias_ = L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm2_parameters_bias_
        add_1 = add + linear_3;  add = linear_3 = None
        layer_norm_1 = torch.nn.functional.layer_norm(add_1, (128,), l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm2_parameters_weight_, l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm2_parameters_bias_, 1e-05);  l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm2_parameters_weight_ = l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm2_parameters_bias_ = None
        return (add_1, layer_norm_1)
